// Why a heat run saw nothing. `tierctl heat` with 0 samples names the source
// and the likeliest reason instead of printing an empty table: a user cannot
// tell "the process is idle" from "this source cannot see it" otherwise.
//
// Contract: empty_reason() is pure (the report carries what it needs, the
// process's on-CPU time included); it returns "" when the primary source saw
// at least one sample, else one sentence that starts with the source's name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tier/heat/collector.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::heat {

/// On-CPU nanoseconds of every live thread of `pid` (the sum of
/// /proc/PID/task/*/schedstat's first field); nullopt when none can be read
/// (process gone, kernel without schedstats).
std::optional<std::uint64_t> process_cpu_ns(const SysRoot& root, int pid);

std::string empty_reason(const HeatReport& report);

}  // namespace tier::heat
