// Trace replay through the real HeatMap and a real placement policy
// (docs/simulator.md, "Replay").
//
// Per epoch e: first-touch any newly allocated pages; feed the epoch's samples
// into one tier::heat::HeatMap per workload; build a policy::Snapshot from the
// model (free bytes per node, latency, regions from the HeatMap split where
// the page node changes or the heat departs from the region's); call
// Policy::plan(); apply the
// moves page by page (a page for a full node fails, a page beyond the global
// or per-workload MB/s x tick budget is dropped together with the rest of the
// plan); end the HeatMap epoch (decay); then score the placement against the
// TRUE distribution of epoch e + 1 (the placement decided now serves the next
// epoch; the last epoch is scored against its own).
//
// Deterministic: no clocks, no randomness; the same trace, machine, options and
// policy give identical reports.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tier/heat/heatmap.hpp"
#include "tier/policy/policy.hpp"
#include "tier/sim/machine.hpp"
#include "tier/sim/trace.hpp"

namespace tier::sim {

struct SimOptions {
  unsigned cpu_node = 0;                               // where every workload runs ...
  std::map<std::string, unsigned> workload_cpu_node;   // ... unless listed here (by id)
  std::optional<unsigned> first_touch_node;            // default: the workload's CPU node
  double budget_mbps = 0;                              // global, MB = 2^20 B; 0 = unlimited
  std::map<std::string, double> workload_budget_mbps;  // per workload id; enforced too
  std::map<std::string, std::uint64_t> quota_bytes;    // passed to the policy, not enforced
  std::size_t ping_pong_window = 10;                   // epochs
  /// Decay, forgetting and memory budget of the HeatMaps. tracked_bytes is set
  /// per workload from the trace; min_granule_shift is raised to the page size.
  heat::HeatMapConfig heat;
  /// A page joins the region before it while its heat is within this factor
  /// of the region's mean heat per page (and it is on the same node); 0 splits
  /// only at node changes and where scored meets unscored memory.
  double heat_band_ratio = 2;
  /// Also offer allocated pages the HeatMap has no score for, as heat-0
  /// regions, so a policy can name cold memory to demote.
  bool cold_regions = true;
  /// Summary checkpoints: after this many epochs.
  std::vector<std::size_t> checkpoints = {10, 30, 60};
};

struct EpochReport {
  std::size_t epoch = 0;
  /// The next epoch's truth had accesses to score against. A recorded epoch
  /// without samples (an idle process) has none: its shares and latency are
  /// 0 and it is left out of the run's means.
  bool scored = true;
  double now_s = 0;  // the snapshot's clock: (epoch + 1) x epoch_s
  std::uint64_t samples = 0;
  std::uint64_t unmapped_samples = 0;  // outside every workload's mappings
  std::size_t regions = 0;             // in the snapshot
  std::size_t moves_planned = 0;
  std::size_t failed_moves = 0;   // moves with a page the target had no room for (or bad pid/node)
  std::size_t dropped_moves = 0;  // moves with a page cut by a migration budget
  std::uint64_t pages_migrated = 0;
  std::uint64_t bytes_migrated = 0;
  std::uint64_t failed_bytes = 0;
  std::uint64_t dropped_bytes = 0;
  std::uint64_t ping_pong_pages = 0;  // pages moved back to a node they left within the window
  double fast_share = 0;              // true access probability (next epoch) on tier-0 nodes
  double oracle_share = 0;            // the hottest pages filling tier-0 capacity
  double mean_latency_ns = 0;         // sum p(page) x latency[cpu node][page node]
  std::uint64_t fast_used_bytes = 0;
};

struct Checkpoint {
  std::size_t epochs = 0;  // after this many epochs (report epochs - 1)
  double fast_share = 0;
  double oracle_share = 0;
  double mean_latency_ns = 0;
};

struct Summary {
  std::size_t epochs = 0;
  std::size_t scored_epochs = 0;        // the means are over these (EpochReport::scored)
  std::vector<Checkpoint> checkpoints;  // those within the run
  double mean_fast_share = 0;
  double mean_oracle_share = 0;
  double mean_latency_ns = 0;
  double final_fast_share = 0;
  double final_oracle_share = 0;
  std::uint64_t pages_migrated = 0;
  std::uint64_t bytes_migrated = 0;
  std::uint64_t ping_pong_pages = 0;
  std::size_t moves_planned = 0;
  std::size_t failed_moves = 0;
  std::size_t dropped_moves = 0;
  std::uint64_t failed_bytes = 0;
  std::uint64_t dropped_bytes = 0;
};

struct SimResult {
  std::vector<EpochReport> epochs;
  Summary summary;
};

Summary summarize(const std::vector<EpochReport>& epochs,
                  const std::vector<std::size_t>& checkpoints);

class Simulator {
 public:
  /// Validates trace, machine and options (std::invalid_argument) and places
  /// epoch 0's pages by first touch: in workload then page order, on the first
  /// node of Machine::fallback_order(first touch node) with room. Throws
  /// std::runtime_error when the machine cannot hold them. `trace` must
  /// outlive the simulator.
  Simulator(const Trace& trace, Machine machine, SimOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  bool done() const;
  /// Replays one epoch (precondition: !done()).
  EpochReport step(policy::Policy& policy);
  /// Replays the remaining epochs.
  SimResult run(policy::Policy& policy);

  /// The model, for tests: node of a workload page (-1 not yet allocated).
  int node_of(std::size_t workload, std::uint64_t page) const;
  std::uint64_t used_bytes(unsigned node) const;
  /// The snapshot the policy saw in the last step().
  const policy::Snapshot& last_snapshot() const;
  /// The plan the policy returned in the last step(), before the model applied it.
  const policy::Plan& last_plan() const;
  /// The share of `truth` on tier-0 nodes under the current placement, and the
  /// oracle's share of it.
  double fast_share(const Distribution& truth) const;
  double oracle_share(const Distribution& truth) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Simulator(trace, machine, options).run(policy).
SimResult simulate(const Trace& trace, const Machine& machine, policy::Policy& policy,
                   const SimOptions& options = {});

}  // namespace tier::sim
