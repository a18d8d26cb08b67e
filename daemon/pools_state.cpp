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
    next = std::make_unique<PoolManager>(tier::SysRoot("/"), topology_,
                                         tier::cpu::load_cpu_inventory(options), config.pools);
  }
  if (pools_) pools_->teardown();
  pools_ = std::move(next);
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

boost::json::value Daemon::pools_json() const {
  if (!pools_) {
    return boost::json::object{
        {"enabled", false},
        {"pools", boost::json::array()},
        {"note", "pools are off in tierd's configuration ([pools] enabled = false)"}};
  }
  return pools_->to_json(registry_.workloads(),
                         [this](const Workload& workload) { return registry_.pids_of(workload); });
}

}  // namespace tierd
