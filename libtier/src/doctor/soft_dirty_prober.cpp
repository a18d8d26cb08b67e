// The live SoftDirtyProber: the documented soft-dirty protocol on one private
// page of this process. clear_refs "4" clears soft-dirty bits of the calling
// process only, so the test leaves every other process alone.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "checks.hpp"
#include "tier/posix/fd.hpp"

namespace tier::doctor {

namespace {

constexpr std::uint64_t kSoftDirtyBit = 1ULL << 55;

// Records the failing step; errno is read first, before anything can clobber it.
bool fail(SoftDirtyOutcome& out, const char* step) {
  out.run.error = errno != 0 ? errno : EIO;  // short reads leave errno 0
  out.run.step = step;
  return false;
}

bool soft_dirty_bit(int pagemap, const void* address, std::size_t page, bool& bit) {
  std::uint64_t entry = 0;
  auto offset = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(address) / page * sizeof entry);
  errno = 0;
  if (pread(pagemap, &entry, sizeof entry, offset) != static_cast<ssize_t>(sizeof entry)) {
    return false;
  }
  bit = (entry & kSoftDirtyBit) != 0;
  return true;
}

bool round_trip(SoftDirtyOutcome& out, volatile char* byte, std::size_t page) {
  const void* address = const_cast<const char*>(byte);
  posix::Fd pagemap(open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  if (!pagemap.valid()) return fail(out, "open /proc/self/pagemap");
  posix::Fd clear_refs(open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC));
  if (!clear_refs.valid()) return fail(out, "open /proc/self/clear_refs");

  *byte = 1;
  if (!soft_dirty_bit(pagemap.get(), address, page, out.dirty_after_write)) {
    return fail(out, "read /proc/self/pagemap after the first write");
  }
  if (write(clear_refs.get(), "4", 1) != 1) return fail(out, "write 4 to /proc/self/clear_refs");
  bool dirty_after_clear = true;
  if (!soft_dirty_bit(pagemap.get(), address, page, dirty_after_clear)) {
    return fail(out, "read /proc/self/pagemap after clear_refs");
  }
  out.clean_after_clear = !dirty_after_clear;
  *byte = 2;
  if (!soft_dirty_bit(pagemap.get(), address, page, out.dirty_after_rewrite)) {
    return fail(out, "read /proc/self/pagemap after the second write");
  }
  return true;
}

class LiveSoftDirtyProber final : public SoftDirtyProber {
 public:
  SoftDirtyOutcome run() override {
    SoftDirtyOutcome out;
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* area = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) {
      fail(out, "mmap");
      return out;
    }
    round_trip(out, static_cast<volatile char*>(area), page);
    munmap(area, page);
    return out;
  }
};

}  // namespace

std::unique_ptr<SoftDirtyProber> make_live_soft_dirty_prober() {
  return std::make_unique<LiveSoftDirtyProber>();
}

}  // namespace tier::doctor
