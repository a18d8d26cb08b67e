// Present-page runs from PAGEMAP_SCAN or the pagemap's entries (see
// present_pages.hpp).
#include "present_pages.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "heat/kernel/kernel_io.hpp"
#include "heat/kernel/pagemap_walk.hpp"
#include "tier/heat/page_tracking.hpp"
#include "tier/memory/residency.hpp"

// Debian 12's kernel headers (6.1) predate PAGEMAP_SCAN (6.7); the ABI below
// is the kernel's include/uapi/linux/fs.h, stable since then.
#ifndef PAGEMAP_SCAN
#define PAGE_IS_PRESENT (1 << 3)
struct page_region {
  std::uint64_t start;
  std::uint64_t end;
  std::uint64_t categories;
};
struct pm_scan_arg {
  std::uint64_t size;
  std::uint64_t flags;
  std::uint64_t start;
  std::uint64_t end;
  std::uint64_t walk_end;
  std::uint64_t vec;
  std::uint64_t vec_len;
  std::uint64_t max_pages;
  std::uint64_t category_inverted;
  std::uint64_t category_mask;
  std::uint64_t category_anyof_mask;
  std::uint64_t return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

namespace tier {

namespace {

constexpr std::size_t kRegionsPerCall = 4096;

void append(std::vector<AddressRun>& runs, std::uint64_t start, std::uint64_t end) {
  if (!runs.empty() && runs.back().end == start) {
    runs.back().end = end;
  } else {
    runs.push_back({start, end});
  }
}

// 0, ENOTTY when the kernel has no PAGEMAP_SCAN, or the errno.
int scan_ioctl(int fd, std::uint64_t start, std::uint64_t end, std::vector<AddressRun>& runs) {
  std::vector<page_region> regions(kRegionsPerCall);
  pm_scan_arg arg{};
  arg.size = sizeof arg;
  arg.start = start;
  arg.end = end;
  arg.vec = reinterpret_cast<std::uint64_t>(regions.data());
  arg.vec_len = regions.size();
  arg.category_mask = PAGE_IS_PRESENT;  // only pages with the bit set
  arg.return_mask = PAGE_IS_PRESENT;
  while (arg.start < end) {
    long filled = ::ioctl(fd, PAGEMAP_SCAN, &arg);
    // EINVAL on the first call: a kernel that knows the ioctl but refuses
    // these arguments is treated as one without it (the entries still work).
    if (filled < 0) return errno == EINVAL && runs.empty() ? ENOTTY : errno;
    for (long i = 0; i < filled; ++i) append(runs, regions[i].start, regions[i].end);
    // walk_end is where the kernel stopped: `end` when done, earlier when the
    // region array filled up.
    if (arg.walk_end <= arg.start) return EIO;
    arg.start = arg.walk_end;
  }
  return 0;
}

}  // namespace

std::optional<PresentPages> find_present_pages(const SysRoot& root, int pid, std::uint64_t start,
                                               std::uint64_t end, bool allow_read, int& error) {
  posix::Fd fd = heat::kernel::open_kernel_file(root, heat::kernel::proc_path(pid, "/pagemap"),
                                                O_RDONLY, error);
  if (!fd.valid()) return std::nullopt;
  PresentPages present;
  error = scan_ioctl(fd.get(), start, end, present.runs);
  if (error == 0) {
    present.from_scan_ioctl = true;
    return present;
  }
  if (error != ENOTTY || !allow_read) return std::nullopt;
  present.runs.clear();
  // The same 8-byte entries the page-tracking heat sources read.
  Mapping range;
  range.start = start;
  range.end = end;
  error = heat::kernel::walk_pagemap(root, pid, {range},
                                     [&](std::uint64_t address, std::uint64_t entry) {
                                       if (heat::pagemap::present(entry)) {
                                         append(present.runs, address, address + kBasePageSize);
                                       }
                                     });
  if (error != 0) return std::nullopt;
  return present;
}

std::vector<AddressRun> widen_runs(const std::vector<AddressRun>& runs, std::uint64_t align,
                                   std::uint64_t start, std::uint64_t end) {
  std::vector<AddressRun> out;
  for (const AddressRun& run : runs) {
    const std::uint64_t begin = std::max(start, run.start / align * align);
    const std::uint64_t stop = std::min(end, (run.end + align - 1) / align * align);
    if (begin >= stop) continue;
    if (!out.empty() && begin <= out.back().end) {
      out.back().end = std::max(out.back().end, stop);
    } else {
      out.push_back({begin, stop});
    }
  }
  return out;
}

}  // namespace tier
