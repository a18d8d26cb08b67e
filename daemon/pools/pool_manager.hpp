// PoolManager: turns the registry's workloads into a CPU pool layout
// (tier::cpu::compute_layout) and realises it with a cpuset backend: one
// group per pool under tierd's parent group, every process workload attached
// to its pool's group; a cgroup workload (a watched parent's child, a
// pod) keeps its cgroup, which gets the pool's CPUs and nodes in its own
// cpuset files where the backend can (cgroup v2).
//
// Contract: called from the daemon loop only. admit() is a dry run that says
// why a new workload's pool cannot be met; realise() recomputes from the
// workloads as they are now (claims keep the CPUs they hold, so a recompute
// moves nobody who did not change) and reports what it could not do instead
// of throwing — a vanished process is skipped, a group removed underneath is
// recreated on the next apply. Only process workloads (api, rule) are
// attached to tier's groups (docs/pools.md).
#pragma once

#include <sys/types.h>

#include <boost/json/value.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config.hpp"
#include "metrics/inputs.hpp"
#include "tier/cpu/cpu_inventory.hpp"
#include "tier/cpu/cpuset_backend.hpp"
#include "tier/cpu/irq_affinity.hpp"
#include "tier/cpu/pool_layout.hpp"
#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"
#include "workloads/registry.hpp"

namespace tierd {

class PoolManager {
 public:
  /// Chooses the backend (throws tier::cpu::CpusetError when a forced one is
  /// not usable, std::invalid_argument for a bad reserved list).
  PoolManager(const tier::SysRoot& root, std::shared_ptr<const tier::Topology> topology,
              tier::cpu::CpuInventory inventory, const PoolsConfig& config);
  ~PoolManager();
  PoolManager(const PoolManager&) = delete;
  PoolManager& operator=(const PoolManager&) = delete;

  /// Why `candidate` cannot join beside `current`, or nullopt when it can.
  std::optional<std::string> admit(const std::vector<Workload>& current,
                                   const Workload& candidate) const;

  using PidsOf = std::function<std::vector<pid_t>(const Workload&)>;
  /// Recomputes the layout for `workloads`, applies the groups and attaches
  /// every process workload's pids to its group. Returns one line per
  /// problem (refused claim, failed write, process gone), already logged.
  std::vector<std::string> realise(const std::vector<Workload>& workloads, const PidsOf& pids_of);

  /// Offline suppression: at most `cpus` of the offline groups' CPUs (the
  /// ones far from online work, tier::policy::shrink_cpuset), or the whole
  /// pool with nullopt. Takes effect at the next realise().
  void set_offline_limit(std::optional<unsigned> cpus) { offline_limit_ = cpus; }
  /// Suppression's CPU limits for the offline groups (cgroup v2 cpu.max and
  /// cpu.weight), or nullopt for none (groups that had them get max/100
  /// back). Takes effect at the next realise(); why a backend could not is
  /// reported in pools.list notes.
  void set_offline_cpu_limits(std::optional<tier::cpu::CpuLimits> limits) {
    offline_cpu_limits_ = std::move(limits);
  }
  const std::optional<tier::cpu::CpuLimits>& offline_cpu_limits() const {
    return offline_cpu_limits_;
  }
  /// CPUs of the online workloads' assignments, and the offline groups'
  /// CPUs before suppression, from the last realise().
  const tier::CpuList& online_cpus() const { return online_cpus_; }
  const tier::CpuList& offline_pool() const { return offline_pool_; }

  /// The CPUs and memory nodes a workload was given, or null.
  const tier::cpu::Assignment* assignment(const std::string& workload_id) const;
  /// Each pool's CPUs and member processes, for metrics.
  std::vector<PoolFigures> figures(const std::vector<Workload>& workloads,
                                   const PidsOf& pids_of) const;
  /// docs/api.md `pools.list`.
  boost::json::value to_json(const std::vector<Workload>& workloads, const PidsOf& pids_of) const;

  /// Removes tierd's groups (tasks back to the hierarchy root). Never throws.
  void teardown() noexcept;

 private:
  std::vector<tier::cpu::Claim> claims_for(const std::vector<Workload>& workloads) const;
  void isolate_irqs(const std::map<std::string, tier::cpu::CpusetTarget>& groups);
  void limit_offline_cpu(const std::vector<std::string>& offline_groups);
  void confine_foreign(const std::map<std::string, tier::cpu::CpusetTarget>& wanted);
  void release(const std::string& dir) noexcept;

  std::shared_ptr<const tier::Topology> topology_;
  tier::cpu::CpuInventory inventory_;
  tier::cpu::PoolConfig pool_config_;
  std::unique_ptr<tier::cpu::CpusetBackend> backend_;
  std::unique_ptr<tier::cpu::IrqIsolation> irqs_;  // null unless [pools] isolate_irqs
  std::vector<std::string> irq_notes_;             // of the last isolation
  std::vector<std::string> backend_reasons_;
  tier::cpu::Layout layout_;
  std::map<std::string, std::string> group_of_;         // workload id -> group it is attached to
  std::map<std::string, std::vector<pid_t>> attached_;  // workload id -> pids attached
  std::optional<unsigned> offline_limit_;
  std::optional<tier::cpu::CpuLimits> offline_cpu_limits_;
  std::map<std::string, tier::cpu::CpuLimits> cpu_limits_written_;  // group -> limits set
  std::vector<std::string> cpu_limit_notes_;                        // of the last realise
  std::map<std::string, tier::cpu::CpusetTarget> confined_;  // cgroup workload dir -> its target
  std::vector<std::string> foreign_notes_;                   // why some were not, last realise
  std::map<std::string, tier::CpuList> group_cpus_;  // group -> CPUs written (after suppression)
  tier::CpuList online_cpus_, offline_pool_;
  std::vector<std::string> problems_;  // of the last realise()
};

/// The cpuset group of an assignment: "shared", "numa-1", "shared-offline"
/// (offline members may lose orphan SMT siblings), "claim-pid-42" for a
/// claim's own CPUs. Pure; exposed for tests.
std::string pool_group_name(const tier::cpu::Assignment& assignment, tier::WorkloadClass cls);

}  // namespace tierd
