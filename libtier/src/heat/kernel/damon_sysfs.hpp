// Internal: the DAMON sysfs layout (Documentation/admin-guide/mm/damon/usage.rst)
// and the writes that set up one monitoring-only kdamond.
//
// Contract: configure_kdamond() fills in kdamonds/<index>, which the caller
// created by writing nr_kdamonds, and leaves it off: one context with
// operations vaddr (refused with a clear reason when avail_operations does
// not list it), the monitoring intervals and region bounds, one target with
// pid_target, and one `stat` scheme whose access pattern matches every region
// (all six bounds start at 0 in the kernel, so the maxima are set to the
// largest values the kernel types hold). Any failed write throws SourceError
// naming the file, the value and the errno; the caller removes the kdamonds.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tier/heat/damon_source.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::heat::kernel {

inline constexpr std::string_view kDamonAdmin = "/sys/kernel/mm/damon/admin";
inline constexpr std::string_view kNrKdamonds = "/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds";

/// ".../kdamonds/<index>" + leaf ("/state", "/contexts/0/operations", ...).
std::string kdamond_path(unsigned index, std::string_view leaf);

/// Writes `value`; throws SourceError("damon: writing 'on' to PATH failed: ...").
void write_or_throw(const SysRoot& root, const std::string& kernel_path, std::string_view value);

void configure_kdamond(const SysRoot& root, unsigned index, pid_t pid,
                       const DamonSettings& settings);

/// One directory of schemes/0/tried_regions.
struct TriedRegion {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t nr_accesses = 0;
};

/// The tried regions kdamond `index` last published; regions whose files
/// cannot be read (being replaced by the kernel) are counted in `unreadable`.
std::vector<TriedRegion> read_tried_regions(const SysRoot& root, unsigned index,
                                            std::uint64_t& unreadable);

}  // namespace tier::heat::kernel
