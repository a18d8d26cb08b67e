// One tick of the `balanced` policy (balanced_policy.cpp, docs/policies.md)
// in named steps, each a method of Tick over the state they share:
//   gather()             every region with a known node, as a Candidate
//   choose_target_set()  the densest data that fits the fast tier (the
//                        adaptive threshold), quotas capping each workload
//   relieve_pressure()   a fast node under its low watermark back to high
//   enforce_quotas()     a workload over its fast-tier quota gives back
//   promote()            target data onto the fast tier, exchanging it for
//                        colder data where there is no room
// The steps run in that order; each books its moves in the ledger and the
// budgets the next one sees. balanced_target.cpp holds the first two,
// balanced_moves.cpp the moves.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "balanced_ranking.hpp"
#include "placement_common.hpp"
#include "tier/memory/page_mover.hpp"

namespace tier::policy::balanced {

struct Settings {
  double budget_mbps, burst_s, low_free_pct, high_free_pct, min_residency_s, residency_clear_ratio,
      backoff_s, hysteresis;
  unsigned bounce_limit;
  double exchange_min_heat, confirm_heat;
};

/// One region with a known node, compact: a tick walks a million of them,
/// several times, and should not go back to the snapshot's regions for that.
struct Candidate {
  const Region* region = nullptr;
  double density = 0;  // heat per MiB (the current rate's, when cooling)
  float heat = 0;      // region->heat and ->accesses, for the cooling test
  float accesses = 0;
  std::uint32_t workload = 0;
  std::uint16_t node = 0;  // where the region is
  std::uint8_t on_fast = 0;
  std::uint8_t cooling = 0;
};

/// What outlives a tick: the anti-thrash history, the budget's token bucket
/// (bytes; none without budget_mbps), the exchanges that wait for a second
/// tick of evidence, and the big buffers, reused rather than re-faulted.
struct Carried {
  MoveHistory history;
  std::optional<TokenBucket> bucket;
  std::unordered_set<std::uint64_t> wanted, wanted_before;  // block_key()s
  std::vector<Candidate> all;
  std::vector<Ranked> keys;
  std::vector<std::uint8_t> in_target, moved;
  std::vector<std::uint32_t> bucket_counts;
  LazyOrder<Ranked, Better> ranked, promotions;
  std::vector<LazyOrder<VictimKey, LeavesFirst>> victims;
};

class Tick {
 public:
  /// `ledger` has nodes, none above 0xffff; `budget` is the tick's global
  /// budget (the bucket's balance and the snapshot's cap).
  Tick(const Settings& settings, Carried& carried, const Snapshot& snapshot, NodeLedger ledger,
       Budget budget, Plan& plan);
  /// False when no region has a known node: nothing to plan.
  bool gather();
  void choose_target_set();
  void relieve_pressure();
  void enforce_quotas();
  void promote();
  /// What the plan spent of the global budget since the tick began.
  std::uint64_t spent() const;

 private:
  // balanced_target.cpp
  const std::vector<unsigned>& nearest(int cpu_node, unsigned tier_rank);
  const std::vector<unsigned>& nearest_for(std::size_t wi, unsigned tier_rank);
  const std::vector<double>& latency_row(int cpu_node);
  double key_of(const Candidate& c) const;
  double settle(Candidate& c) const;
  void add_promotion(std::uint32_t i);
  void add_victim(std::uint32_t i);
  void prepare_ranking();
  void select_equal_regions();
  void select_in_order();
  // balanced_moves.cpp
  bool clearly_hot(std::size_t i) const;
  bool fresh_evidence(std::size_t i) const;
  bool exchange_allowed(std::size_t i);
  std::uint64_t budget_left(std::size_t i) const;
  std::optional<Region> part_of(std::size_t i, bool waive_residency);
  void emit(std::size_t i, Region part, unsigned to, std::uint64_t bytes, std::string reason);
  template <typename Reason>
  std::uint64_t demote(std::size_t i, std::uint64_t want, Reason reason);
  std::optional<std::uint32_t> victim(unsigned node, std::size_t k);
  void promote_one(std::size_t i, std::vector<std::size_t>& next_victim);
  std::uint64_t make_room(std::size_t i, unsigned to, std::uint64_t want, std::uint64_t room,
                          std::size_t& cursor);
  std::pair<unsigned, std::uint64_t> best_room(const std::vector<unsigned>& fast_nodes,
                                               std::uint64_t want) const;

  const Settings& settings_;
  Carried& carried_;
  const Snapshot& snapshot_;
  Plan& plan_;
  NodeLedger ledger_;
  unsigned fast_tier_ = 0;
  unsigned max_node_ = 0;
  std::vector<std::int8_t> on_fast_node_;  // per node: 1 fast, 0 slower, -1 unknown node
  Budget budget_;
  std::uint64_t budget_at_start_ = 0;
  std::size_t workloads_ = 0;
  std::vector<Budget> workload_budgets_;
  std::vector<int> cpu_of_, class_of_;
  bool offline_out_ = false;
  // gather()
  std::vector<std::uint64_t> fast_bytes_;  // per workload, as the plan so far leaves it
  std::uint64_t min_bytes_ = ~std::uint64_t{0}, total_bytes_ = 0;
  double sum_heat_ = 0, sum_accesses_ = 0;
  double average_ = 0;  // bytes per candidate
  std::size_t per_tick_regions_ = 0, fast_node_count_ = 0;
  // Node orders and latencies from each CPU node, computed once per tick.
  std::map<std::pair<int, unsigned>, std::vector<unsigned>> nearest_cache_;
  std::map<std::pair<std::size_t, unsigned>, std::vector<unsigned>> allowed_cache_;
  std::map<int, std::vector<double>> latency_from_;  // cpu node → by memory node
  // choose_target_set()
  double heat_per_sample_ = 0, incumbent_ = 1;
  std::uint64_t capacity_ = 0;
  std::vector<std::uint64_t> target_bytes_;
  double threshold_ = 0;            // density of the last region admitted
  bool contested_ = false;          // data with heat was left out of the target set
  double background_per_byte_ = 0;  // this epoch's samples per byte outside the target set
  std::vector<const std::vector<double>*> row_of_;
  std::vector<double> best_fast_of_;
  bool victims_built_ = false;
  // the moves
  std::unordered_map<std::uint32_t, std::uint64_t> partly_moved_;
  bool victims_ordered_ = false;
};

}  // namespace tier::policy::balanced
