// The flags every program of the workload suite shares (tier-gups,
// tier-graph, tier-kv; docs/workload-suite.md), parsed
// through tier's value grammar so a bad value reads as it does in tierctl:
//   --node N            where the data is first placed (must exist)
//   --policy P          bind | bind-balancing | first-touch (default): how it
//                       stays there (placement.hpp)
//   --cpus LIST         worker i runs on the i-th CPU of LIST, round robin
//   --threads N         workers (1-256; default 1)
//   --duration D        how long the measured part runs ("30s", "500ms")
//   --start-file FILE   the measured part starts once FILE exists
//   --ready-file FILE   created once the data is placed (the ready line)
//   --report FILE       one JSON line per --report-ms interval (report.hpp)
//   --report-ms MS      the interval (100-60000; default 1000)
//   --seed N            the run's random seed (default 1)
// A program loops over argv, hands each flag to parse_suite_flag() first and
// handles its own flags when that returns false.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "placement.hpp"
#include "tier/cpu/cpulist.hpp"

namespace tier_workloads {

struct SuiteOptions {
  int node = -1;  // -1: not given (the program decides whether that is an error)
  Placement policy = Placement::first_touch;
  tier::CpuList cpus;  // empty: threads not pinned
  unsigned threads = 1;
  double duration_s = 0;  // 0: until SIGTERM/SIGINT
  std::string start_file, ready_file, report;
  double report_ms = 1000;
  std::uint64_t seed = 1;
};

/// The usage lines of the shared flags, for a program's own usage text.
extern const char* const kSuiteUsage;

/// If `flag` is one of the shared flags, parses `value` into `o` and returns
/// true; false for any other flag. A bad value throws
/// tier::values::ValueError naming the flag ("--node '9': no such NUMA node
/// 9 on this machine (nodes: 0-3)").
bool parse_suite_flag(std::string_view flag, std::string_view value, SuiteOptions& o);

/// A duration flag in seconds: tier's duration grammar ("30s", "500ms",
/// bare digits are seconds) from `min_ms` to `max_ms` milliseconds.
double parse_seconds(std::string_view flag, std::string_view value, long min_ms, long max_ms);

/// The NUMA nodes with memory and the CPUs this machine has (libnuma).
tier::CpuList machine_nodes();
tier::CpuList machine_cpus();

}  // namespace tier_workloads
