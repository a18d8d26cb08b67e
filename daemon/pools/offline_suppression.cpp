#include "pools/offline_suppression.hpp"

#include <boost/json.hpp>
#include <limits>

#include "log.hpp"

namespace tierd {

namespace {

constexpr double kMB = 1e6;  // churn limits are in MB/s, like the migration budgets

}  // namespace

std::optional<FastNodeFree> tightest_fast_node(const tier::Topology& topology,
                                               const tier::MemorySnapshot& memory) {
  unsigned fast_tier = std::numeric_limits<unsigned>::max();
  for (const tier::NodeMemory& node : memory.nodes) {
    const tier::Node* known = topology.node(node.node);
    if (known != nullptr && node.total_bytes > 0) fast_tier = std::min(fast_tier, known->tier);
  }
  std::optional<FastNodeFree> tightest;
  double least_headroom = std::numeric_limits<double>::infinity();
  for (const tier::NodeMemory& node : memory.nodes) {
    const tier::Node* known = topology.node(node.node);
    if (known == nullptr || known->tier != fast_tier || node.low_watermark_bytes == 0) continue;
    const double headroom =
        static_cast<double>(node.free_bytes) - static_cast<double>(node.low_watermark_bytes);
    if (headroom < least_headroom) {
      least_headroom = headroom;
      tightest = FastNodeFree{node.node, node.free_bytes, node.low_watermark_bytes};
    }
  }
  return tightest;
}

OfflineSuppression::OfflineSuppression(tier::policy::SuppressionConfig config,
                                       SuppressionSignalSettings signals, tier::SysRoot root)
    : config_(config), signals_(signals), sampler_(std::move(root)) {
  tier::policy::validate(config_);
}

const tier::policy::SuppressionDecision& OfflineSuppression::tick(double now_s,
                                                                  const SuppressionInputs& in) {
  tier::policy::SuppressionSignals signals;
  signals.now_s = now_s;
  // Always sample, so the next interval starts now even without online CPUs.
  std::optional<double> use;
  try {
    use = sampler_.sample(in.online_cpus);
  } catch (const std::exception& e) {
    log::warn() << "suppression: cannot read CPU use: " << e.what();
  }
  online_cpu_use_ = in.online_cpus.empty() ? std::nullopt : use;
  signals.online_cpu_use = online_cpu_use_.value_or(0);
  if (signals_.fast_share_floor > 0 && in.online_fast_share) {
    signals.online_fast_share = in.online_fast_share;
    signals.online_fast_share_floor = signals_.fast_share_floor;
  }
  if (signals_.fast_free_trigger && in.fast_free) {
    signals.fast_free_bytes = in.fast_free->free_bytes;
    signals.fast_low_watermark_bytes = in.fast_free->low_watermark_bytes;
  }
  churn_bytes_per_s_.reset();
  if (in.moved_bytes_total) {
    if (last_moved_ && now_s > last_moved_->first && *in.moved_bytes_total >= last_moved_->second) {
      churn_bytes_per_s_ = static_cast<double>(*in.moved_bytes_total - last_moved_->second) /
                           (now_s - last_moved_->first);
    }
    last_moved_ = {now_s, *in.moved_bytes_total};
  }
  if (signals_.churn_limit_mbps > 0 && churn_bytes_per_s_) {
    signals.churn_bytes_per_s = *churn_bytes_per_s_;
    signals.churn_limit_bytes_per_s = signals_.churn_limit_mbps * kMB;
  }
  pool_cpus_ = in.offline_pool_cpus;
  decision_ = tier::policy::suppression_tick(config_, in.offline_pool_cpus, signals, state_);
  for (const std::string& kind : decision_.trigger_kinds) ++trigger_epochs_[kind];
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
  auto optional = [](const std::optional<double>& value) {
    return value ? boost::json::value(*value) : boost::json::value(nullptr);
  };
  boost::json::array triggers;
  for (const std::string& trigger : decision_.triggers)
    triggers.push_back(boost::json::string(trigger));
  boost::json::object out{{"suppressed", suppressed()},
                          {"offline_cpus", decision_.offline_cpus},
                          {"offline_pool_cpus", pool_cpus_},
                          {"offline_budget_factor", decision_.offline_budget_factor},
                          {"cpu_weight", decision_.cpu_weight},
                          {"demote_offline_first", decision_.demote_offline_first},
                          {"triggers", std::move(triggers)},
                          {"last_action", last_action_},
                          {"actions", actions_},
                          {"cpu_threshold", config_.cpu_threshold},
                          {"cpu_restore", config_.cpu_restore}};
  out["online_cpu_use"] = optional(online_cpu_use_);
  out["churn_mbps"] = optional(churn_bytes_per_s_ ? std::optional<double>(*churn_bytes_per_s_ / kMB)
                                                  : std::nullopt);
  out["cpu_max"] =
      decision_.cpu_max ? boost::json::value(*decision_.cpu_max) : boost::json::value("max");
  return out;
}

}  // namespace tierd
