// tierd's CPU pools: the pool manager's life cycle beside the registry
// (docs/pools.md). Every registry change ends in realise_pools().
#include <boost/json.hpp>

#include "daemon.hpp"
#include "log.hpp"
#include "tier/cpu/cpu_inventory.hpp"

namespace tierd {

void Daemon::configure_pools(const Config& config) {
  std::unique_ptr<PoolManager> next;
  if (config.pools.enabled) {
    tier::TopologyOptions options;
    options.root = tier::SysRoot(config.topology_root);
    // Built before the running one is torn down: a backend that cannot be
    // used leaves the running pools as they are.
    next = std::make_unique<PoolManager>(options_.root, topology_,
                                         tier::cpu::load_cpu_inventory(options), config.pools);
  }
  std::unique_ptr<OfflineSuppression> suppression;
  if (next && config.suppression.enabled) {
    const SuppressionSettings& s = config.suppression;
    tier::policy::SuppressionConfig controller;
    controller.cpu_threshold = s.cpu_threshold;
    controller.cpu_restore = s.cpu_restore;
    controller.restore_delay_s = s.restore_delay_s;
    controller.min_offline_cpus = s.min_offline_cpus;
    controller.step_cpus = s.step_cpus;
    controller.memory_budget_factor = s.memory_budget_factor;
    const SuppressionSignalSettings signals{s.fast_share_floor, s.fast_free_trigger,
                                            s.churn_limit_mbps};
    suppression = std::make_unique<OfflineSuppression>(controller, signals,
                                                       tier::SysRoot(config.topology_root));
  }
  if (pools_) pools_->teardown();
  pools_ = std::move(next);
  suppression_ = std::move(suppression);
  if (!pools_) {
    log::info() << "pools: off ([pools] enabled = false); workloads' pools are reported only";
    return;
  }
  realise_pools();
}

void Daemon::realise_pools() {
  if (!pools_) return;
  pools_->realise(registry_.workloads(),
                  [this](const Workload& workload) { return registry_.pids_of(workload); });
}

void Daemon::suppress_offline() {
  if (!pools_ || !suppression_) return;
  const double now_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  SuppressionInputs inputs;
  inputs.online_cpus = pools_->online_cpus();
  inputs.offline_pool_cpus = static_cast<unsigned>(pools_->offline_pool().size());
  inputs.online_fast_share = online_fast_share();
  if (memory_) {
    inputs.fast_free = tightest_fast_node(*topology_, *memory_);
    const tier::TieringCounts kernel = tier::tiering_counts(memory_->vmstat);
    constexpr std::uint64_t kPage = 4096;  // the vmstat counters count base pages
    inputs.moved_bytes_total =
        (kernel.promoted_pages + kernel.demoted_pages) * kPage + moves_.moved_bytes();
  }
  const std::optional<unsigned> before = suppression_->offline_limit();
  const tier::policy::SuppressionDecision& decision = suppression_->tick(now_s, inputs);
  const std::optional<unsigned> after = suppression_->offline_limit();
  std::optional<tier::cpu::CpuLimits> limits;
  if (after && config_.suppression.cgroup_cpu_limits) {
    limits = tier::cpu::CpuLimits{decision.cpu_max.value_or("max"), decision.cpu_weight};
  }
  // The limits follow the share kept of the offline pool, so they change
  // with the pool's size too (an exclusive claim arriving or leaving) while
  // the CPU count kept stays the same.
  if (before != after || limits != pools_->offline_cpu_limits()) {
    pools_->set_offline_limit(after);
    pools_->set_offline_cpu_limits(std::move(limits));
    realise_pools();
  }
}

void Daemon::update_pool_metrics() {
  std::vector<PoolFigures> pools;
  if (pools_) {
    pools = pools_->figures(registry_.workloads(), [this](const Workload& workload) {
      return registry_.pids_of(workload);
    });
  }
  std::optional<SuppressionFigures> suppression;
  if (suppression_) {
    const tier::policy::SuppressionDecision& decision = suppression_->decision();
    suppression = SuppressionFigures{suppression_->suppressed(),
                                     decision.offline_cpus,
                                     static_cast<unsigned>(pools_->offline_pool().size()),
                                     suppression_->online_cpu_use(),
                                     decision.offline_budget_factor,
                                     suppression_->actions(),
                                     suppression_->trigger_epochs()};
  }
  metrics_->update_pools(pools, suppression);
}

std::optional<double> Daemon::offline_budget_mbps(const Workload& workload) const {
  if (!suppression_ || workload.workload_class != WorkloadClass::offline) return std::nullopt;
  const double factor = suppression_->decision().offline_budget_factor;
  if (factor >= 1) return std::nullopt;
  double base = workload.budget_mbps;
  if (base <= 0) {
    auto policy_budget = policy_params_.find("budget_mbps");
    if (policy_budget != policy_params_.end()) base = policy_budget->second;
  }
  if (base <= 0) return std::nullopt;  // no budget anywhere: nothing to cut
  return base * factor;
}

std::optional<double> Daemon::online_fast_share() const {
  TierResidency online;
  for (const Workload& workload : registry_.workloads()) {
    if (workload.workload_class != WorkloadClass::online) continue;
    const TierResidency one = residency_by_tier(workload.id);
    online.total += one.total;
    for (const auto& [rank, bytes] : one.by_tier) online.by_tier[rank] += bytes;
  }
  return online.fast_share();
}

boost::json::value Daemon::pools_json() const {
  if (!pools_) {
    return boost::json::object{
        {"enabled", false},
        {"pools", boost::json::array()},
        {"note", "pools are off in tierd's configuration ([pools] enabled = false)"}};
  }
  boost::json::value out = pools_->to_json(registry_.workloads(), [this](const Workload& workload) {
    return registry_.pids_of(workload);
  });
  out.as_object()["suppression"] =
      suppression_ ? suppression_->to_json() : boost::json::value{{"enabled", false}};
  return out;
}

}  // namespace tierd
