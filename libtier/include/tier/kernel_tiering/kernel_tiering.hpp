// KernelTiering: what the kernel itself already does with the memory tiers.
//
// Contract: read_kernel_tiering(root) reads, through SysRoot only, the knobs
// of the kernel's own tiering mechanisms: NUMA balancing (mode bits, promote
// rate limit, the debugfs hot threshold and scanner knobs), reclaim-time
// demotion, DAMON (kdamonds of DAMON sysfs with their schemes, and the
// DAMON_RECLAIM / DAMON_LRU_SORT / DAMON_STAT modules) and weighted
// interleave weights. It never writes anything and never throws for what
// the kernel does not have: every item is a Probed<T> that holds either a
// value or a `why_not` sentence (file missing and what that means, errno of
// an unreadable file, or the text that did not parse). The summary
// (kernel_promotes, kernel_demotes, damon_acts) is derived from the
// values, so it can be computed from a hand-built KernelTiering as well.
//
// The kernel's promotion/demotion counters (pgpromote_*, pgdemote_*) are not
// here: NodeUsage (tier/memory/node_usage.hpp) already reads /proc/vmstat.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tier {

/// A value read from the kernel, or the reason there is none.
template <class T>
struct Probed {
  std::optional<T> value;
  std::string why_not;  // empty when value is set

  bool has_value() const { return value.has_value(); }
  static Probed known(T v) { return Probed{std::move(v), {}}; }
  static Probed unknown(std::string why) { return Probed{std::nullopt, std::move(why)}; }
};

/// kernel.numa_balancing and its knobs. `mode` is the raw bitmask.
struct NumaBalancing {
  static constexpr unsigned kNormal = 1;         // NUMA_BALANCING_NORMAL
  static constexpr unsigned kMemoryTiering = 2;  // NUMA_BALANCING_MEMORY_TIERING

  Probed<unsigned> mode;                          // /proc/sys/kernel/numa_balancing
  Probed<std::uint64_t> promote_rate_limit_mbps;  // numa_balancing_promote_rate_limit_MBps
  // debugfs /sys/kernel/debug/sched/numa_balancing/ (the scanner knobs fall
  // back to the /proc/sys/kernel/numa_balancing_scan_* sysctls of old kernels).
  Probed<std::uint64_t> hot_threshold_ms;
  Probed<std::uint64_t> scan_delay_ms;
  Probed<std::uint64_t> scan_period_min_ms;
  Probed<std::uint64_t> scan_period_max_ms;
  Probed<std::uint64_t> scan_size_mb;

  bool normal() const { return mode.value && (*mode.value & kNormal) != 0; }
  bool memory_tiering() const { return mode.value && (*mode.value & kMemoryTiering) != 0; }
};

/// What a DAMOS action does to page placement.
enum class DamonEffect {
  none,     // stat, willneed, hugepage, nohugepage, unknown actions
  migrate,  // migrate_hot, migrate_cold: moves pages to target_nid (6.11+)
  reclaim,  // pageout: reclaims pages, which demotes them when demotion is on
  lru,      // lru_prio, lru_deprio, cold: reorder LRU lists, steering reclaim/demotion
};
const char* to_string(DamonEffect effect);
DamonEffect damon_effect(std::string_view action);

/// One migration destination of a scheme (`dests/N/{id,weight}`: newer kernels, e.g. 6.18).
struct DamonDest {
  int node = -1;
  std::uint64_t weight = 0;
};

struct DamonScheme {
  unsigned index = 0;
  Probed<std::string> action;
  std::optional<int> target_nid;  // absent when the file is (older kernels); -1 = none set
  std::vector<DamonDest> dests;
  std::optional<std::uint64_t> apply_interval_us;
  std::optional<std::uint64_t> quota_bytes;  // 0 = no size quota
  std::optional<std::uint64_t> quota_ms;     // 0 = no time quota
  // Refreshed by the kernel only on `update_schemes_stats`: may be stale.
  std::optional<std::uint64_t> nr_applied;
  std::optional<std::uint64_t> sz_applied;

  DamonEffect effect() const {
    return action.value ? damon_effect(*action.value) : DamonEffect::none;
  }
};

struct DamonContext {
  unsigned index = 0;
  Probed<std::string> operations;  // vaddr, fvaddr, paddr
  std::vector<long> target_pids;   // vaddr targets' pid_target
  std::vector<DamonScheme> schemes;
};

struct Kdamond {
  unsigned index = 0;
  Probed<std::string> state;  // "on" / "off"
  std::optional<long> pid;    // the kdamond thread; -1 / absent when off
  std::vector<DamonContext> contexts;

  bool running() const { return state.value && *state.value == "on"; }
};

/// A DAMON module that runs its own kdamond, invisible in DAMON sysfs.
struct DamonModule {
  std::string name;  // damon_reclaim, damon_lru_sort, damon_stat
  Probed<bool> enabled;
  std::optional<long> kdamond_pid;
  DamonEffect effect = DamonEffect::none;  // of the schemes the module runs
};

struct DamonUse {
  bool sysfs = false;   // /sys/kernel/mm/damon/admin exists
  std::string why_not;  // why there is no DAMON sysfs to read
  std::vector<Kdamond> kdamonds;
  std::vector<DamonModule> modules;  // only the modules the kernel has
};

struct WeightedInterleave {
  bool available = false;
  std::string why_not;
  std::vector<std::pair<unsigned, Probed<unsigned>>> weights;  // node -> weight, by node
  // The auto-mode switch (6.16+); its name has varied (`auto`, `__auto_type`).
  std::optional<std::string> auto_file;
  Probed<bool> auto_mode;
};

struct KernelTiering {
  NumaBalancing numa_balancing;
  Probed<bool> demotion_enabled;  // /sys/kernel/mm/numa/demotion_enabled
  DamonUse damon;
  WeightedInterleave weighted_interleave;

  /// NUMA balancing in memory tiering mode (bit 2): hint faults promote.
  bool kernel_promotes() const { return numa_balancing.memory_tiering(); }
  /// Reclaim demotes to the next slower tier instead of dropping pages.
  bool kernel_demotes() const { return demotion_enabled.value.value_or(false); }
  /// A running kdamond (or an enabled DAMON module) has a scheme whose
  /// action moves pages or steers reclaim: migrate_*, pageout, lru_*, cold.
  bool damon_acts() const;
  /// "kdamond 0 context 0 scheme 1: migrate_cold -> node 2", one per
  /// running scheme (and enabled module) with an effect on placement.
  std::vector<std::string> damon_acting_schemes() const;
};

KernelTiering read_kernel_tiering(const SysRoot& root);

/// Parsers shared by the readers (exposed for tests): nullopt on anything
/// but the exact forms the kernel prints.
std::optional<bool> parse_kernel_bool(std::string_view text);  // true/false, Y/N, 1/0
std::optional<std::int64_t> parse_kernel_int(std::string_view text);

/// {"numa_balancing":{...},"demotion":{...},"damon":{...},
///  "weighted_interleave":{...},"summary":{...}}; absent values are null with
/// a sibling "<name>_why_not" string (docs/kernel-tiering.md).
boost::json::object kernel_tiering_json(const KernelTiering& kt);
/// Indented text, one fact per line, for `tierctl doctor`.
void print_kernel_tiering(std::ostream& out, const KernelTiering& kt);

}  // namespace tier
