// CPU use from /proc/stat: how busy each CPU, or a set of CPUs, was between
// two readings — the online-pool signal of offline suppression.
//
// Contract: CpuTimes holds one "cpuN" line's cumulative jiffies. Busy time
// is total − idle − iowait, where total sums user, nice, system, idle,
// iowait, irq, softirq and steal (guest and guest_nice are already counted
// in user and nice, so they are not added again). parse_proc_stat() throws
// std::invalid_argument naming the bad line; read_proc_stat() goes through a
// SysRoot (fixture trees in tests) and returns nullopt when /proc/stat is
// unreadable. The delta functions compare two readings: a CPU missing from
// either has no figure; a counter that went backwards (per-CPU iowait does
// on NO_HZ kernels) adds nothing; an interval with no elapsed jiffies
// counts as idle.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "tier/cpu/cpulist.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::cpu {

struct CpuTimes {
  unsigned cpu = 0;
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  std::uint64_t total() const {
    return user + nice + system + idle + iowait + irq + softirq + steal;
  }
  std::uint64_t busy() const { return total() - idle - iowait; }
};

/// The per-CPU lines of one /proc/stat reading, sorted by CPU id.
struct CpuStat {
  std::vector<CpuTimes> cpus;
  const CpuTimes* find(unsigned cpu) const;
};

/// Parses /proc/stat text (only the "cpuN" lines; the aggregate "cpu" line
/// and everything else are ignored). Throws std::invalid_argument naming the
/// malformed line.
CpuStat parse_proc_stat(std::string_view text);

/// Reads and parses /proc/stat under `root`; nullopt when unreadable.
std::optional<CpuStat> read_proc_stat(const SysRoot& root);

/// Busy fraction (0..1) of every CPU present in both readings.
std::map<unsigned, double> busy_fractions(const CpuStat& before, const CpuStat& after);

/// Busy fraction of a set of CPUs taken together (busy jiffies over elapsed
/// jiffies summed over the set); nullopt when none of them has a figure.
std::optional<double> busy_fraction(const CpuStat& before, const CpuStat& after,
                                    const CpuList& cpus);

/// The daemon's tick-to-tick view: each sample() reads /proc/stat and
/// returns the busy fraction of `cpus` since the previous sample (nullopt on
/// the first call, when /proc/stat is unreadable, or when none of the CPUs
/// has a figure). A malformed /proc/stat throws like parse_proc_stat().
class CpuUsageSampler {
 public:
  explicit CpuUsageSampler(SysRoot root = SysRoot()) : root_(std::move(root)) {}
  std::optional<double> sample(const CpuList& cpus);

 private:
  SysRoot root_;
  std::optional<CpuStat> previous_;
};

}  // namespace tier::cpu
