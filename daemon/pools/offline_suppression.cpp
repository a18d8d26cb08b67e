#include "pools/offline_suppression.hpp"

#include <boost/json.hpp>

#include "log.hpp"

namespace tierd {

OfflineSuppression::OfflineSuppression(tier::policy::SuppressionConfig config,
                                       double fast_share_floor, tier::SysRoot root)
    : config_(config), fast_share_floor_(fast_share_floor), sampler_(std::move(root)) {
  tier::policy::validate(config_);
}

const tier::policy::SuppressionDecision& OfflineSuppression::tick(
    double now_s, const tier::CpuList& online_cpus, unsigned offline_pool_cpus,
    std::optional<double> online_fast_share) {
  tier::policy::SuppressionSignals signals;
  signals.now_s = now_s;
  // Always sample, so the next interval starts now even without online CPUs.
  std::optional<double> use;
  try {
    use = sampler_.sample(online_cpus);
  } catch (const std::exception& e) {
    log::warn() << "suppression: cannot read CPU use: " << e.what();
  }
  online_cpu_use_ = online_cpus.empty() ? std::nullopt : use;
  signals.online_cpu_use = online_cpu_use_.value_or(0);
  if (fast_share_floor_ > 0 && online_fast_share) {
    signals.online_fast_share = online_fast_share;
    signals.online_fast_share_floor = fast_share_floor_;
  }
  pool_cpus_ = offline_pool_cpus;
  decision_ = tier::policy::suppression_tick(config_, offline_pool_cpus, signals, state_);
  if (decision_.action) {
    ++actions_;
    last_action_ = *decision_.action;
    log::info() << "suppression: " << *decision_.action;
  }
  return decision_;
}

std::optional<unsigned> OfflineSuppression::offline_limit() const {
  if (!suppressed()) return std::nullopt;
  return decision_.offline_cpus;
}

bool OfflineSuppression::suppressed() const {
  return pool_cpus_ > 0 && decision_.offline_cpus < pool_cpus_;
}

boost::json::value OfflineSuppression::to_json() const {
  boost::json::array triggers;
  for (const std::string& trigger : decision_.triggers)
    triggers.push_back(boost::json::string(trigger));
  boost::json::object out{{"suppressed", suppressed()},
                          {"offline_cpus", decision_.offline_cpus},
                          {"offline_pool_cpus", pool_cpus_},
                          {"offline_budget_factor", decision_.offline_budget_factor},
                          {"cpu_weight", decision_.cpu_weight},
                          {"triggers", std::move(triggers)},
                          {"last_action", last_action_},
                          {"actions", actions_},
                          {"cpu_threshold", config_.cpu_threshold},
                          {"cpu_restore", config_.cpu_restore}};
  out["online_cpu_use"] =
      online_cpu_use_ ? boost::json::value(*online_cpu_use_) : boost::json::value(nullptr);
  out["cpu_max"] =
      decision_.cpu_max ? boost::json::value(*decision_.cpu_max) : boost::json::value("max");
  return out;
}

}  // namespace tierd
