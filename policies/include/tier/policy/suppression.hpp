// Offline suppression: how much CPU, migration budget and cgroup CPU share
// the offline workloads may have right now, so online work keeps its
// headroom (docs/suppression.md).
//
// Contract: suppression_tick() is a pure, deterministic function of the
// config, the offline pool's full size, one tick's signals and the state the
// caller carries between ticks; it reads no clock (time arrives in
// SuppressionSignals::now_s) and touches nothing. It shrinks the offline
// CPUs one step per tick while any trigger holds (online CPU use over its
// threshold, the online workloads' fast-tier share under its floor, fast-tier
// free memory under its low watermark, promotion/demotion churn over its
// limit), never below the minimum, and gives them back one step per tick
// only after every signal has stayed under its (lower) restore level for
// restore_delay_s: the gap between the two levels plus the delay is the
// hysteresis that keeps flapping input from oscillating the cpuset.
// shrink_cpuset() picks which CPUs the offline pool keeps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tier/cpu/cpu_inventory.hpp"
#include "tier/cpu/cpulist.hpp"

namespace tier::policy {

/// One tick's view of the machine. Optional signals are skipped when absent
/// (no online workload with fast-tier data, no fast node found, ...).
struct SuppressionSignals {
  double now_s = 0;           // the caller's monotonic clock
  double online_cpu_use = 0;  // 0..1 of the online pools' CPUs busy over the last interval
  std::optional<double> online_fast_share;  // 0..1 of online resident memory on the fast tier
  double online_fast_share_floor = 0;       // the share the online workloads should keep
  std::optional<std::uint64_t> fast_free_bytes;
  std::optional<std::uint64_t> fast_low_watermark_bytes;
  double churn_bytes_per_s = 0;        // promoted + demoted over the last interval
  double churn_limit_bytes_per_s = 0;  // 0 = no churn trigger
};

/// Thresholds and what suppression cuts. Defaults follow Koordinator's CPU
/// Suppress (65% threshold) with a restore level 15 points lower.
struct SuppressionConfig {
  double cpu_threshold = 0.65;  // shrink while online CPU use is above this
  double cpu_restore = 0.50;    // restore only while online CPU use is below this
  double restore_delay_s = 5;   // ... and every signal has been calm this long
  unsigned min_offline_cpus = 1;
  unsigned step_cpus = 1;  // CPUs taken or given back per tick
  // Memory signals' restore levels (hysteresis like cpu_restore):
  double fast_share_restore_margin = 0.05;  // calm when share >= floor + margin
  double free_restore_factor = 1.5;         // calm when free >= factor x low watermark
  double churn_restore_fraction = 0.5;      // calm when churn <= fraction x limit
  // The offline migration budget while a memory signal triggers (multiplied
  // in on top of the CPU fraction): their promotions compete for the fast
  // tier the online workloads are short of.
  double memory_budget_factor = 0.25;
  // cgroup v2 cpu.max period and the weight range of cpu.weight (1..10000).
  unsigned cpu_max_period_us = 100000;
  unsigned cpu_weight_normal = 100;  // the kernel's default
  unsigned cpu_weight_min = 1;
};

/// Throws std::invalid_argument naming the bad field and value (a threshold
/// outside 0..1, cpu_restore above cpu_threshold, step 0, weights outside
/// 1..10000, negative delay or factors, ...).
void validate(const SuppressionConfig& config);

/// Carried by the caller from one tick to the next; a default-constructed
/// state means "not suppressed yet".
struct SuppressionState {
  // CPUs taken away from the offline pool (not an absolute count: the pool
  // grows and shrinks as claims come and go, and an offline pool that was
  // empty at first must not look suppressed once workloads join it).
  unsigned taken = 0;
  std::optional<double> calm_since_s;  // when every signal last went under its restore level
  bool demoting_offline_first = false;
};

/// What to apply this tick. Every field is absolute (not a delta), so the
/// caller may re-apply it each tick.
struct SuppressionDecision {
  unsigned offline_cpus = 0;           // <= the pool's size, >= min (unless the pool is smaller)
  double offline_budget_factor = 1;    // 0..1 multiplier for the offline migration budget
  std::optional<std::string> cpu_max;  // cgroup v2 "quota period"; nullopt = "max"
  unsigned cpu_weight = 100;           // cgroup v2 cpu.weight for the offline group
  bool demote_offline_first = false;   // fast tier short: demote offline pages before online ones
  std::vector<std::string> triggers;   // "online CPU 82% > 65%", ...
  std::vector<std::string> trigger_kinds;  // per trigger: online_cpu|fast_share|fast_free|churn
  std::optional<std::string> action;       // one log line when something changed
};

/// One controller step. `offline_pool_cpus` is the offline pool's full size
/// (it may change between ticks; the state is clamped to it). The config
/// must have passed validate().
SuppressionDecision suppression_tick(const SuppressionConfig& config, unsigned offline_pool_cpus,
                                     const SuppressionSignals& signals, SuppressionState& state);

/// The `keep` CPUs of `offline_pool` the offline workloads may still use.
/// Given up first: SMT siblings of online CPUs (they share a core's
/// execution units and caches), then CPUs on an online CPU's NUMA node
/// (memory bandwidth, LLC), then on its package; among equals the highest
/// id goes first. CPUs the inventory does not know count as far away.
/// keep >= the pool's size returns the pool unchanged.
CpuList shrink_cpuset(const CpuList& offline_pool, unsigned keep, const CpuList& online_cpus,
                      const cpu::CpuInventory& inventory);

}  // namespace tier::policy
