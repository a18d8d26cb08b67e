// Internal: where a process's present pages lie inside an address range,
// found from its page tables instead of one move_pages query per page.
//
// The PAGEMAP_SCAN ioctl on /proc/PID/pagemap (Linux 6.7+) walks only the
// populated page tables, so its cost follows what is mapped, not the size of
// the range: what a sparse mapping (a 16 TiB sanitizer shadow, a reserved JVM
// heap) needs. Older kernels (and fixture roots, where the pagemap is a plain
// file) answer ENOTTY; there the caller may allow reading the pagemap's
// 8-byte entries, bit 63 = present (still ~500x less work per page than a
// move_pages query, but proportional to the range).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tier {

struct AddressRun {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  // exclusive
};

struct PresentPages {
  std::vector<AddressRun> runs;  // ascending, disjoint, page-aligned, merged
  bool from_scan_ioctl = false;  // PAGEMAP_SCAN answered (else the entries were read)
};

/// Present runs of pid's pages inside [start, end). nullopt with `error` set
/// when the pagemap cannot be opened or read, or when PAGEMAP_SCAN is missing
/// and `allow_read` is false (error = ENOTTY).
std::optional<PresentPages> find_present_pages(const SysRoot& root, int pid, std::uint64_t start,
                                               std::uint64_t end, bool allow_read, int& error);

/// Widens each run to whole `align`-sized units (so a THP or a huge page is
/// never split between two queries), clamped to [start, end), and merges runs
/// that then touch. Pure.
std::vector<AddressRun> widen_runs(const std::vector<AddressRun>& runs, std::uint64_t align,
                                   std::uint64_t start, std::uint64_t end);

}  // namespace tier
