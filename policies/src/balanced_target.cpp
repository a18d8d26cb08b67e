// The `balanced` tick's first steps (balanced_tick.hpp): gather the
// candidates, choose the target set.
#include <algorithm>

#include "balanced_tick.hpp"

namespace tier::policy::balanced {

namespace {

// A region "cools" when its accesses this epoch fall to a quarter of what its
// decayed heat implies, and the heat implies enough samples (8) for the drop
// to be beyond sampling noise (Poisson(8) gives 2 or fewer 1.4% of the time).
constexpr double kCoolingMinSamples = 8;
constexpr double kCoolingDrop = 4;

}  // namespace

Tick::Tick(const Settings& settings, Carried& carried, const Snapshot& snapshot, NodeLedger ledger,
           Budget budget, Plan& plan)
    : settings_(settings),
      carried_(carried),
      snapshot_(snapshot),
      plan_(plan),
      ledger_(std::move(ledger)),
      fast_tier_(ledger_.fastest_tier()),
      max_node_(ledger_.nodes().back()),
      budget_(budget),
      budget_at_start_(budget.remaining() ? *budget.remaining() : ~std::uint64_t{0}),
      workloads_(snapshot.workloads.size()),
      cpu_of_(workloads_),
      class_of_(workloads_),
      offline_out_(snapshot.demote_offline_first) {
  // Per-node facts as flat tables: the loops below touch them per region.
  on_fast_node_.assign(max_node_ + 1, -1);
  for (unsigned node : ledger_.nodes()) on_fast_node_[node] = ledger_.tier(node) == fast_tier_;
  // While offline data is out of the target set (demote_offline_first,
  // below) none of it is promoted, and its demotions make room for online
  // data: its own budget does not hold them back (the global one does).
  for (std::size_t wi = 0; wi < workloads_; ++wi) {
    const WorkloadState& w = snapshot.workloads[wi];
    class_of_[wi] = class_rank(w.workload_class);
    const bool unbudgeted = offline_out_ && w.workload_class == WorkloadClass::offline;
    workload_budgets_.emplace_back(unbudgeted ? 0.0 : w.budget_mbps, 0, snapshot.tick_s);
    cpu_of_[wi] = home_cpu_node(snapshot, w);
  }
}

bool Tick::gather() {
  // Everything with a known node, and what each workload has on the fast
  // tier. The big buffers are carried: reused, not re-faulted, each tick.
  std::vector<Candidate>& all = carried_.all;
  all.clear();
  fast_bytes_.assign(workloads_, 0);
  for (std::size_t wi = 0; wi < workloads_; ++wi) {
    const WorkloadState& w = snapshot_.workloads[wi];
    for (const Region& r : w.regions) {
      if (r.node < 0 || static_cast<unsigned>(r.node) > max_node_ ||
          on_fast_node_[static_cast<unsigned>(r.node)] < 0 || r.end <= r.start) {
        continue;
      }
      const bool on_fast = on_fast_node_[static_cast<unsigned>(r.node)] == 1;
      const std::uint64_t bytes = r.bytes();
      all.push_back({&r, r.heat * kMiB / static_cast<double>(bytes), static_cast<float>(r.heat),
                     static_cast<float>(r.accesses), static_cast<std::uint32_t>(wi),
                     static_cast<std::uint16_t>(r.node), static_cast<std::uint8_t>(on_fast), 0});
      if (on_fast) fast_bytes_[wi] += bytes;
      min_bytes_ = std::min(min_bytes_, bytes);
      total_bytes_ += bytes;
      sum_heat_ += r.heat;
      sum_accesses_ += static_cast<double>(r.accesses);
    }
  }
  if (all.empty()) return false;
  average_ = static_cast<double>(total_bytes_) / static_cast<double>(all.size());
  // What one tick can move, in regions: how far the lazy orders sort first
  // (an exchange spends half of it each way: twice what is needed, and
  // the victims shared among the fast nodes).
  const double per_tick = budget_.remaining() ? static_cast<double>(*budget_.remaining())
                                              : static_cast<double>(total_bytes_);
  per_tick_regions_ = static_cast<std::size_t>(std::min(per_tick / average_, 1e9)) + 64;
  fast_node_count_ = std::max<std::size_t>(ledger_.nodes_of_tier(fast_tier_).size(), 1);
  return true;
}

const std::vector<unsigned>& Tick::nearest(int cpu_node, unsigned tier_rank) {
  auto [it, fresh] = nearest_cache_.try_emplace({cpu_node, tier_rank});
  if (fresh) it->second = nearest_of_tier(snapshot_, ledger_, cpu_node, tier_rank);
  return it->second;
}

// The same, less the nodes a workload may not use (its cpuset's mems).
const std::vector<unsigned>& Tick::nearest_for(std::size_t wi, unsigned tier_rank) {
  const std::vector<unsigned>& any = nearest(cpu_of_[wi], tier_rank);
  if (snapshot_.workloads[wi].allowed_nodes.empty()) return any;
  auto [it, fresh] = allowed_cache_.try_emplace({wi, tier_rank});
  if (fresh) it->second = allowed_only(any, snapshot_.workloads[wi]);
  return it->second;
}

const std::vector<double>& Tick::latency_row(int cpu_node) {
  auto [it, fresh] = latency_from_.try_emplace(cpu_node);
  if (fresh) {
    it->second.assign(max_node_ + 1, 0.0);
    for (unsigned node : ledger_.nodes()) {
      it->second[node] = latency_ns(snapshot_, ledger_, cpu_node, node);
    }
  }
  return it->second;
}

// Under offline suppression's memory signals offline data has no place
// in the target set: key 0 keeps it out, so it is the first to leave a
// fast node that online data needs and none of it is promoted.
double Tick::key_of(const Candidate& c) const {
  if (offline_out_ && snapshot_.workloads[c.workload].workload_class == WorkloadClass::offline) {
    return 0.0;
  }
  return c.density * (c.on_fast && !c.cooling ? incumbent_ : 1.0);
}

// The cooling test, then the ranking key (the first pass of either way
// of selecting below).
double Tick::settle(Candidate& c) const {
  if (heat_per_sample_ > 0) {
    const double expected = c.heat / heat_per_sample_;
    const double seen = c.accesses;
    if (expected >= kCoolingMinSamples && seen * kCoolingDrop <= expected) {
      c.cooling = 1;
      c.density = seen * heat_per_sample_ * kMiB / static_cast<double>(c.region->bytes());
    }
  }
  return key_of(c);
}

void Tick::add_promotion(std::uint32_t i) {
  const Candidate& c = carried_.all[i];
  const double benefit = (*row_of_[c.workload])[c.node] - best_fast_of_[c.workload];
  carried_.promotions.keys().emplace_back(c.density * std::max(benefit, 1.0), i);
}

void Tick::add_victim(std::uint32_t i) {
  const Candidate& c = carried_.all[i];
  carried_.victims[c.node].keys().push_back(
      victim_key(carried_.in_target[i] != 0, class_of_[c.workload],
                 snapshot_.workloads[c.workload].priority, c.density, i));
}

// The adaptive threshold: fill the fast tier's usable capacity with the
// densest data, incumbents favoured by the hysteresis so equal heat does
// not swap places; quotas cap each workload's share of it. A cooling
// region (its accesses this epoch far under what its heat implies, heat
// per sample = Σheat / Σaccesses of the tick) ranks by its current rate
// and without the incumbent's advantage: after a phase change the old
// hot set is judged by what it gets now, not by its decaying past.
void Tick::choose_target_set() {
  prepare_ranking();
  bool quotas = false;
  for (const WorkloadState& w : snapshot_.workloads) quotas |= w.quota_bytes.has_value();
  if (!quotas && min_bytes_ * carried_.all.size() == total_bytes_) {
    select_equal_regions();
  } else {
    select_in_order();
  }
  // The sampling rate of the data left out: what noise alone gives a region.
  double samples = 0, bytes = 0;
  for (std::size_t i = 0; i < carried_.all.size(); ++i) {
    if (carried_.in_target[i]) continue;
    samples += carried_.all[i].accesses;
    bytes += static_cast<double>(carried_.all[i].region->bytes());
  }
  background_per_byte_ = bytes > 0 ? samples / bytes : 0;
}

void Tick::prepare_ranking() {
  heat_per_sample_ = sum_accesses_ > 0 ? sum_heat_ / sum_accesses_ : 0;
  for (const NodeState& n : snapshot_.nodes) {
    if (n.tier == fast_tier_ && n.total_bytes > ledger_.high(n.node)) {
      capacity_ += n.total_bytes - ledger_.high(n.node);
    }
  }
  incumbent_ = 1 + settings_.hysteresis;
  carried_.in_target.assign(carried_.all.size(), 0);
  carried_.moved.assign(carried_.all.size(), 0);
  target_bytes_.assign(workloads_, 0);
  // Promotion candidates (target regions not on the fast tier) keyed by
  // heat × latency benefit: the latency from the workload's CPU node to
  // where the region is, minus to its nearest fast node.
  row_of_.resize(workloads_);
  best_fast_of_.resize(workloads_);
  for (std::size_t wi = 0; wi < workloads_; ++wi) {
    const std::vector<unsigned>& fast_nodes = nearest_for(wi, fast_tier_);
    row_of_[wi] = &latency_row(cpu_of_[wi]);
    best_fast_of_[wi] = fast_nodes.empty() ? 0 : (*row_of_[wi])[fast_nodes.front()];
  }
  carried_.promotions.keys().clear();
  // Fast-tier data of each fast node, to be ordered the way it leaves
  // (VictimKey) when something has to leave.
  carried_.victims.resize(max_node_ + 1);
  for (auto& order : carried_.victims) order.keys().clear();
  carried_.keys.clear();
}

// Equal regions (HeatMap granules) and no quota: the target set is the
// top capacity/size of them. A histogram of the keys finds the bucket
// the last one falls in; only that bucket is selected exactly.
void Tick::select_equal_regions() {
  std::vector<Candidate>& all = carried_.all;
  std::vector<Ranked>& keys = carried_.keys;
  std::vector<std::uint8_t>& in_target = carried_.in_target;
  std::vector<std::uint32_t>& counts = carried_.bucket_counts;
  counts.assign(kBuckets, 0);
  std::size_t positive = 0;
  for (Candidate& c : all) {
    const double key = settle(c);
    if (key > 0) ++counts[bucket_of(key)], ++positive;
  }
  const std::size_t fit = std::min<std::size_t>(positive, capacity_ / min_bytes_);
  contested_ = fit < positive;
  if (fit == 0) return;
  std::size_t above = 0, boundary = kBuckets - 1;
  while (above + counts[boundary] < fit) above += counts[boundary--];
  // One pass marks the target set and collects the promotion and
  // victim keys; the boundary bucket's regions are added once it is
  // decided which of them are in.
  for (std::uint32_t i = 0; i < all.size(); ++i) {
    const Candidate& c = all[i];
    const double key = key_of(c);
    const std::uint32_t b = key > 0 ? bucket_of(key) : 0;
    if (key > 0 && b == boundary) {
      keys.emplace_back(key, i);
      continue;
    }
    if (key > 0 && b > boundary) {
      in_target[i] = 1;
      if (!c.on_fast) add_promotion(i);
    }
    if (c.on_fast) add_victim(i);
  }
  const std::size_t need = fit - above;  // >= 1 by the choice of boundary
  std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(need - 1), keys.end(),
                   Better{});
  threshold_ = all[keys[need - 1].second].density;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::uint32_t i = keys[k].second;
    in_target[i] = k < need;
    if (k < need && !all[i].on_fast) add_promotion(i);
    if (all[i].on_fast) add_victim(i);
  }
  victims_built_ = true;
}

// Any regions, or quotas: admit the densest first, each while it fits the
// capacity left and its workload's quota.
void Tick::select_in_order() {
  std::vector<Candidate>& all = carried_.all;
  std::vector<Ranked>& keys = carried_.keys;
  for (std::uint32_t i = 0; i < all.size(); ++i) {
    const double key = settle(all[i]);
    if (key > 0) keys.emplace_back(key, i);
  }
  LazyOrder<Ranked, Better>& ranked = carried_.ranked;
  ranked.keys().swap(keys);
  ranked.reset(static_cast<std::size_t>(static_cast<double>(capacity_) / average_ * 1.25) + 64);
  std::uint64_t filled = 0;
  std::size_t admitted = 0;
  for (std::size_t k = 0; k < ranked.size() && capacity_ - filled >= min_bytes_; ++k) {
    const std::uint32_t i = ranked[k].second;
    const Candidate& c = all[i];
    const std::uint64_t bytes = c.region->bytes();
    if (filled + bytes > capacity_) continue;  // a smaller, colder one may still fit
    const auto& quota = snapshot_.workloads[c.workload].quota_bytes;
    if (quota && target_bytes_[c.workload] + bytes > *quota) continue;
    carried_.in_target[i] = 1;
    if (!c.on_fast) add_promotion(i);
    target_bytes_[c.workload] += bytes;
    filled += bytes;
    threshold_ = c.density;
    ++admitted;
  }
  contested_ = admitted < ranked.size();
  ranked.keys().swap(keys);
}

}  // namespace tier::policy::balanced
