// The tierd process: one Boost.Asio loop carrying the signal handlers, the
// sampling-epoch and policy-tick timers and the control server; the metrics
// exporter serves scrapes on its own threads (prometheus-cpp/civetweb) from
// values the loop updates. Heat requests run on a worker thread and post
// their reply back to the loop.
//
// Life cycle: start() loads the topology, recovers state.json (workloads,
// kernel originals, pause, policy), applies the [kernel] settings, starts
// the exporter and the control socket and reports READY; SIGHUP reloads
// (a bad file keeps everything as it was); SIGTERM/SIGINT restore every
// kernel setting, save state and stop.
#pragma once

#include <boost/asio.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "config.hpp"
#include "control_server.hpp"
#include "kernel_settings.hpp"
#include "metrics/metrics.hpp"
#include "options.hpp"
#include "placement/first_evidence.hpp"
#include "placement/heat_choice.hpp"
#include "placement/move_ledger.hpp"
#include "placement/node_watch.hpp"
#include "placement/placement_worker.hpp"
#include "pools/offline_suppression.hpp"
#include "pools/pool_manager.hpp"
#include "residency_scanner.hpp"
#include "service_notifier.hpp"
#include "tier/heat/selection.hpp"
#include "tier/memory/node_usage.hpp"
#include "tier/policy/policy.hpp"
#include "tier/topology/topology.hpp"
#include "workloads/registry.hpp"

namespace tierd {

class HeatWorker;

/// `config`'s topology (its root and tier overrides).
tier::Topology load_topology(const Config& config);
/// "5 node(s), 3 memory tier(s)": what the log says of a topology.
std::string topology_summary(const tier::Topology& topology);

/// `status` details at most this many workloads unless asked for all
/// (`"all_workloads": true`); `workloads.list` always lists every one.
inline constexpr std::size_t kStatusWorkloads = 64;

class Daemon {
 public:
  Daemon(const Options& options, Config config, ServiceNotifier& notifier);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  /// Runs until SIGTERM/SIGINT; returns the exit code.
  int run();

 private:
  // --- life cycle (daemon.cpp) ---
  void wait_for_signal();
  void start();
  void stop(int signal);
  /// Re-reads the configuration; returns the changes, throws with the reason
  /// (ConfigError names file:line:key) leaving everything as it was.
  std::vector<std::string> reload();
  void reload_from_signal();
  void recover_state();
  void keep_damaged_state(const std::string& problem);
  void remove_stale_temporaries();
  void save_state();
  void use_policy(const std::string& name, const tier::policy::Params& params);

  // --- the loop's timers: sampling epoch, policy tick (loop_timers.cpp) ---
  void schedule_epoch();
  void schedule_tick();
  void sample_epoch();
  void policy_tick();
  void refresh_workloads(std::int64_t now_unix_s);
  void scan_residency();
  void take_residency(std::vector<ResidencyResult> results);
  tier::policy::Snapshot policy_snapshot() const;
  std::vector<WorkloadPlacement> placements() const;

  // --- placement: heat, moves, what they did (placement/daemon_placement.cpp) ---
  void start_placement();
  /// The heat source `own` + `auto` resolves to, and the config the kernel
  /// settings are applied from (heat_source resolved).
  Config with_heat_choice(const Config& config);
  std::vector<tier::policy::NodeState> node_states() const;
  void take_heat(HeatEpoch epoch);
  void take_moves(std::vector<MoveOutcome> outcomes);
  void apply_move_to_residency(const MoveOutcome& outcome);
  void note_withheld(const std::vector<WithheldMove>& withheld);
  /// Every workload's placement with `all_workloads`, else at most
  /// kStatusWorkloads of them (workloads/listing.hpp).
  boost::json::value placement_json(bool all_workloads) const;
  boost::json::object heat_json() const;
  /// A workload's resident bytes per tier rank from its last residency scan
  /// (nodes the topology does not know count in `total` only).
  struct TierResidency {
    std::map<unsigned, std::uint64_t> by_tier;
    std::uint64_t total = 0;
    /// Tier 0's share of `total`; nullopt before anything was resident.
    std::optional<double> fast_share() const;
    /// {"0": bytes, "1": bytes, ...}
    boost::json::object to_json() const;
  };
  TierResidency residency_by_tier(const std::string& workload_id) const;
  std::vector<std::vector<double>> latency_matrix() const;

  // --- node memory coming and going (placement/daemon_nodes.cpp) ---
  /// A topology with the node memory read just before it: the NodeWatch
  /// baseline once the topology is in use.
  struct WatchedTopology {
    std::shared_ptr<const tier::Topology> topology;
    tier::MemorySnapshot memory;
    std::uint64_t block_bytes = 0;
  };
  WatchedTopology read_watched_topology(const Config& config) const;
  /// Each epoch: when node memory changed by a block or more since the
  /// topology was read, logs what changed, re-reads the topology and counts
  /// the change for status (docs/topology.md, "Memory hotplug").
  void follow_node_memory();
  /// status's "last_topology_change" (null before any).
  boost::json::value topology_change_json() const;

  // --- CPU pools (pools/daemon_pools.cpp) ---
  /// Builds the pool manager for `config` ([pools] enabled) or tears the
  /// running one down; throws what the backend choice throws.
  void configure_pools(const Config& config);
  /// Discovery from config_; "auto" is off while one_tier_note_ says there
  /// is one tier (discovery_idle()).
  void configure_discovery();
  bool discovery_idle() const {
    return config_.discover == DiscoverMode::automatic && !one_tier_note_.empty();
  }
  boost::json::object discovery_json() const;
  /// Recomputes the layout and moves workloads into their pools' cpusets.
  void realise_pools();
  /// One offline-suppression step (each sampling epoch); realises the pools
  /// again when the offline CPUs change.
  void suppress_offline();
  /// Tier 0's share of the online workloads' resident memory (last scans).
  std::optional<double> online_fast_share() const;
  /// Suppression's cut of an offline workload's migration budget (MB/s), or
  /// nullopt while it is not cut (or there is no budget to cut).
  std::optional<double> offline_budget_mbps(const Workload& workload) const;
  boost::json::value pools_json() const;
  /// tier_pool_* and tier_suppression_* series from the pools as they are now.
  void update_pool_metrics();

  // --- control methods (control_methods.cpp) ---
  void add_control_methods();
  boost::json::value workloads_json() const;
  boost::json::value policy_json() const;
  boost::json::value register_workload(const boost::json::value& params);
  boost::json::value unregister_workload(const boost::json::value& params);
  boost::json::value update_workload(const boost::json::value& params);
  boost::json::value set_policy(const boost::json::value& params);
  boost::json::value set_paused(bool paused);

  // --- status (status.cpp) ---
  boost::json::value status_json(bool all_workloads) const;
  std::string status_line() const;
  std::string serving_status(const std::string& note) const;
  std::string summary() const;

  void record_dropped(const DroppedWorkload& dropped, std::int64_t now_unix_s);

  const Options& options_;
  Config config_;
  ServiceNotifier& notifier_;
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  WatchdogKicker watchdog_;
  boost::asio::steady_timer epoch_timer_;
  boost::asio::steady_timer tick_timer_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point next_epoch_, next_tick_;

  std::shared_ptr<const tier::Topology> topology_;
  std::optional<tier::MemorySnapshot> memory_;
  KernelSettings kernel_;
  Registry registry_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<ControlServer> server_;
  std::unique_ptr<HeatWorker> heat_;
  std::unique_ptr<ResidencyScanner> residency_scanner_;
  std::unique_ptr<PlacementWorker> placement_;
  std::unique_ptr<PoolManager> pools_;               // null while [pools] enabled = false
  std::unique_ptr<OfflineSuppression> suppression_;  // null unless pools and suppression are on

  // Policy and its counters.
  std::string policy_name_;
  tier::policy::Params policy_params_;
  std::unique_ptr<tier::policy::Policy> policy_;
  bool paused_ = false;
  std::uint64_t ticks_ = 0;
  std::uint64_t epochs_ = 0;
  double last_tick_ms_ = 0;
  std::size_t planned_moves_ = 0;
  // one_tier_note() of the current topology (empty: two tiers or more), and
  // whether the log has said it since that topology was loaded.
  std::string one_tier_note_;
  bool one_tier_logged_ = false;
  std::size_t discovered_logged_ = 0;  // discovery's workload count last logged

  // Workloads: residency per id (the last scan, with tierd's own moves since
  // applied in place), when each was scanned (steady s), those whose moves
  // could not be applied (read again first), the scans' totals; recent drops.
  std::map<std::string, std::map<unsigned, std::uint64_t>> residency_;
  std::map<std::string, double> residency_scanned_at_;
  std::set<std::string> residency_stale_;
  std::uint64_t residency_scans_ = 0;
  double residency_scan_seconds_ = 0;
  struct Dropped {
    DroppedWorkload dropped;
    std::int64_t at_unix_s = 0;
  };
  std::deque<Dropped> dropped_;
  std::uint64_t dropped_total_ = 0;

  // Placement: the worker's last view of each workload, and what tierd's
  // moves did per workload since start.
  std::map<std::string, WorkloadHeatView> heat_views_;
  // The one heat source's last epoch, without the views (status "heat").
  HeatEpoch heat_epoch_;
  HeatChoice heat_choice_;
  // With heat source "auto": what auto picks on this machine now (the worker
  // probes again when its source must start) and why, for status; an
  // empty source when none is usable (`why` then says why not).
  tier::heat::AutoPick auto_pick_;
  MoveLedger moves_;              // what tierd's moves did (status; suppression's churn)
  FirstEvidence first_evidence_;  // how soon each workload got heat and a promotion
  std::uint64_t moves_withheld_ = 0;
  std::uint64_t fd_limit_ = 0;  // RLIMIT_NOFILE after raise_open_file_limit()
  std::string last_withheld_reason_;
  std::map<std::string, std::uint64_t> vmstat_at_start_;  // the kernel's own moves since start

  struct ReloadNote {
    bool ok = true;
    std::string message;
    std::int64_t unix_s = 0;
  };
  std::optional<ReloadNote> last_reload_;

  // Node memory against the topology in use, and what changed under it.
  NodeWatch node_watch_;
  std::uint64_t topology_changes_ = 0;
  struct TopologyChange {
    std::vector<std::string> nodes;  // NodeWatch::changes() lines
    std::string topology;            // topology_summary() after the re-read
    std::int64_t unix_s = 0;
  };
  std::optional<TopologyChange> last_topology_change_;
  std::string state_error_;  // last state.json write failure, "" when fine
  // What the start found in state.json and what became of it, and how the
  // writes since went: status's "state_file".
  struct StateFileNote {
    std::string found = "absent";  // absent, loaded, damaged
    std::string problem;           // why a file was damaged or partly unusable
    std::string kept_as;           // where a damaged file was kept aside
    std::size_t recovered_workloads = 0;
    std::uint64_t writes = 0, write_failures = 0;
    std::string last_write_error;  // the last failure, kept after a later success
    std::int64_t last_write_error_unix_s = 0;
  };
  StateFileNote state_note_;
  boost::json::object state_file_json() const;
};

}  // namespace tierd
