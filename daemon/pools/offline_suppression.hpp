// OfflineSuppression: tierd's side of the offline suppression controller
// (tier::policy::suppression_tick, docs/suppression.md). Each sampling epoch
// it measures how busy the online workloads' CPUs were since the last epoch
// (/proc/stat), takes the memory signals the daemon gathered (the online
// workloads' fast-tier share, the tightest fast node's free memory against
// its low watermark, promotion/demotion churn), runs one controller step and
// keeps the decision, the last action and counts for status, pools.list and
// metrics.
//
// Contract: called from the daemon loop only; tick() never throws (an
// unreadable /proc/stat skips the CPU signal for that epoch).
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tier/cpu/cpu_usage.hpp"
#include "tier/cpu/cpulist.hpp"
#include "tier/memory/node_usage.hpp"
#include "tier/policy/suppression.hpp"
#include "tier/topology/topology.hpp"

namespace tierd {

/// Which memory signals are watched ([suppression] keys).
struct SuppressionSignalSettings {
  double fast_share_floor = 0;  // 0 = the fast-share signal is off
  bool fast_free_trigger = true;
  double churn_limit_mbps = 0;  // 0 = the churn signal is off
};

/// One fast-tier node's free memory against its low watermark.
struct FastNodeFree {
  unsigned node = 0;
  std::uint64_t free_bytes = 0;
  std::uint64_t low_watermark_bytes = 0;
};

/// The fast-tier node (lowest tier rank among nodes with memory) with the
/// least free memory above its low watermark; nullopt when no fast node has
/// a known watermark. Pure.
std::optional<FastNodeFree> tightest_fast_node(const tier::Topology& topology,
                                               const tier::MemorySnapshot& memory);

/// What the daemon measured this epoch, besides the CPU use sampled here.
struct SuppressionInputs {
  tier::CpuList online_cpus;
  unsigned offline_pool_cpus = 0;
  std::optional<double> online_fast_share;
  std::optional<FastNodeFree> fast_free;
  // Bytes promoted + demoted since some fixed start (the kernel's counters
  // and tierd's own moves); the churn is its rate between epochs.
  std::optional<std::uint64_t> moved_bytes_total;
};

class OfflineSuppression {
 public:
  OfflineSuppression(tier::policy::SuppressionConfig config, SuppressionSignalSettings signals,
                     tier::SysRoot root);

  /// One controller step; returns the decision (also kept for reports).
  const tier::policy::SuppressionDecision& tick(double now_s, const SuppressionInputs& inputs);

  /// The offline CPUs allowed now, or nullopt while nothing is suppressed.
  std::optional<unsigned> offline_limit() const;
  bool suppressed() const;
  const tier::policy::SuppressionDecision& decision() const { return decision_; }
  /// {"offline_cpus", "offline_pool_cpus", "online_cpu_use", "triggers", "last_action", ...}
  boost::json::value to_json() const;
  std::uint64_t actions() const { return actions_; }
  /// Epochs each kind of trigger held ("online_cpu", "fast_share",
  /// "fast_free", "churn"), for metrics.
  const std::map<std::string, std::uint64_t>& trigger_epochs() const { return trigger_epochs_; }
  std::optional<double> online_cpu_use() const { return online_cpu_use_; }

 private:
  tier::policy::SuppressionConfig config_;
  SuppressionSignalSettings signals_;
  tier::cpu::CpuUsageSampler sampler_;
  tier::policy::SuppressionState state_;
  tier::policy::SuppressionDecision decision_;
  unsigned pool_cpus_ = 0;
  std::optional<double> online_cpu_use_;
  std::optional<double> churn_bytes_per_s_;
  std::optional<std::pair<double, std::uint64_t>> last_moved_;  // (time, bytes) of the last epoch
  std::string last_action_;
  std::uint64_t actions_ = 0;
  std::map<std::string, std::uint64_t> trigger_epochs_;
};

}  // namespace tierd
