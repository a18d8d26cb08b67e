// The live SoftDirtyProber: the documented soft-dirty protocol on one private
// page of this process. clear_refs "4" clears soft-dirty bits of the calling
// process only, so the test leaves every other process alone.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "checks.hpp"

namespace tier::doctor {

namespace {

constexpr std::uint64_t kSoftDirtyBit = 1ULL << 55;

class LiveSoftDirtyProber final : public SoftDirtyProber {
 public:
  SoftDirtyOutcome run() override {
    SoftDirtyOutcome out;
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* area = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) return fail(out, "mmap");
    auto* byte = static_cast<volatile char*>(area);
    int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    int clear_refs = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    auto dirty = [&](bool& bit) {
      std::uint64_t entry = 0;
      off_t offset = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(area) / page * 8);
      if (pread(pagemap, &entry, sizeof entry, offset) != sizeof entry) return false;
      bit = (entry & kSoftDirtyBit) != 0;
      return true;
    };
    bool clean_bit = true;
    if (pagemap < 0) {
      fail(out, "open /proc/self/pagemap");
    } else if (clear_refs < 0) {
      fail(out, "open /proc/self/clear_refs");
    } else if (*byte = 1; !dirty(out.dirty_after_write)) {
      fail(out, "read /proc/self/pagemap");
    } else if (write(clear_refs, "4", 1) != 1) {
      fail(out, "write 4 to /proc/self/clear_refs");
    } else if (!dirty(clean_bit)) {
      fail(out, "read /proc/self/pagemap");
    } else if (*byte = 2; !dirty(out.dirty_after_rewrite)) {
      fail(out, "read /proc/self/pagemap");
    }
    out.clean_after_clear = !clean_bit;
    if (pagemap >= 0) close(pagemap);
    if (clear_refs >= 0) close(clear_refs);
    munmap(area, page);
    return out;
  }

 private:
  static SoftDirtyOutcome& fail(SoftDirtyOutcome& out, const char* step) {
    out.run.error = errno != 0 ? errno : EIO;  // short reads leave errno 0
    out.run.step = step;
    return out;
  }
};

}  // namespace

std::unique_ptr<SoftDirtyProber> make_live_soft_dirty_prober() {
  return std::make_unique<LiveSoftDirtyProber>();
}

}  // namespace tier::doctor
