// OfflineSuppression: tierd's side of the offline suppression controller
// (tier::policy::suppression_tick, docs/suppression.md). Each sampling epoch
// it measures how busy the online workloads' CPUs were since the last epoch
// (/proc/stat) and their fast-tier share, runs one controller step and keeps
// the decision, the last action and counts for status and pools.list.
//
// Contract: called from the daemon loop only; tick() never throws (an
// unreadable /proc/stat skips the CPU signal for that epoch).
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "tier/cpu/cpu_usage.hpp"
#include "tier/cpulist.hpp"
#include "tier/policy/suppression.hpp"

namespace tierd {

class OfflineSuppression {
 public:
  /// fast_share_floor: the online workloads' fast-tier share below which
  /// offline work is suppressed (0 = that signal off).
  OfflineSuppression(tier::policy::SuppressionConfig config, double fast_share_floor,
                     tier::SysRoot root = tier::SysRoot());

  /// One controller step; returns the decision (also kept for reports).
  const tier::policy::SuppressionDecision& tick(double now_s, const tier::CpuList& online_cpus,
                                                unsigned offline_pool_cpus,
                                                std::optional<double> online_fast_share);

  /// The offline CPUs allowed now, or nullopt while nothing is suppressed.
  std::optional<unsigned> offline_limit() const;
  bool suppressed() const;
  /// {"offline_cpus", "offline_pool_cpus", "online_cpu_use", "triggers", "last_action", ...}
  boost::json::value to_json() const;
  std::uint64_t actions() const { return actions_; }

 private:
  tier::policy::SuppressionConfig config_;
  double fast_share_floor_;
  tier::cpu::CpuUsageSampler sampler_;
  tier::policy::SuppressionState state_;
  tier::policy::SuppressionDecision decision_;
  unsigned pool_cpus_ = 0;
  std::optional<double> online_cpu_use_;
  std::string last_action_;
  std::uint64_t actions_ = 0;
};

}  // namespace tierd
