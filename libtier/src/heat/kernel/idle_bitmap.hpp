// Internal: batched access to /sys/kernel/mm/page_idle/bitmap (word layout in
// tier/heat/page_tracking.hpp).
//
// Contract: the kernel accepts only 8-byte aligned reads and writes of whole
// words, so PFNs are grouped by word and runs of consecutive words go in one
// pread/pwrite each. mark_idle() writes only the bits of the given PFNs
// (the kernel ignores 0 bits, so other pages in the same words are left as
// they are). Both return 0 or the errno.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "kernel_io.hpp"

namespace tier::heat::kernel {

inline constexpr std::string_view kIdleBitmapPath = "/sys/kernel/mm/page_idle/bitmap";

class IdleBitmap {
 public:
  explicit IdleBitmap(posix::Fd fd) : fd_(std::move(fd)) {}

  /// Sets the idle bit of every PFN in `pfns`.
  int mark_idle(const std::vector<std::uint64_t>& pfns) const;
  /// Word index -> word, for the words holding `pfns`. Words past the end of
  /// the bitmap (beyond the last PFN) are absent.
  int read(const std::vector<std::uint64_t>& pfns,
           std::map<std::uint64_t, std::uint64_t>& words) const;

 private:
  posix::Fd fd_;
};

/// True when `pfn`'s bit is clear in `words`: accessed since it was marked.
/// A PFN whose word could not be read counts as not accessed.
bool accessed_since_marked(const std::map<std::uint64_t, std::uint64_t>& words, std::uint64_t pfn);

}  // namespace tier::heat::kernel
