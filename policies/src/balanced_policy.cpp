#include "balanced_policy.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "placement_common.hpp"

namespace tier::policy {

namespace {

struct Settings {
  double budget_mbps, low_free_pct, high_free_pct, min_residency_s, backoff_s, hysteresis;
  unsigned bounce_limit;
  double exchange_min_heat;
};

// offline data leaves the fast tier first, online last.
int class_rank(const std::string& workload_class) {
  if (workload_class == "offline") return 0;
  if (workload_class == "online") return 2;
  return 1;
}

struct Candidate {
  const WorkloadState* workload = nullptr;
  const Region* region = nullptr;
  std::size_t workload_index = 0;
  int cpu_node = 0;
  unsigned node = 0;   // where the region is (copied: the hot loops read it)
  double density = 0;  // heat per MiB
  bool on_fast = false;
};

std::string promote_reason(double density, double threshold) {
  char text[160];
  std::snprintf(text, sizeof text, "promote: heat %.3g/MiB over threshold %.3g/MiB", density,
                threshold);
  return text;
}

std::string room_reason(double hotter, double colder) {
  char text[160];
  std::snprintf(text, sizeof text, "demote: room for hotter data (%.3g/MiB over %.3g/MiB)", hotter,
                colder);
  return text;
}

// Moves are cut to whole 2 MiB chunks (4 KiB below that) when a region is
// larger than what a budget or the room on a node allows.
constexpr std::uint64_t kChunk = std::uint64_t{2} << 20;
std::uint64_t chunk(std::uint64_t allowed, std::uint64_t region_bytes) {
  if (allowed >= region_bytes) return region_bytes;
  const std::uint64_t align = allowed >= kChunk ? kChunk : 4096;
  return allowed / align * align;
}
// A need (bytes to free) rounded up to whole chunks: freeing must cover it.
std::uint64_t chunks_covering(std::uint64_t need) {
  return (need + kChunk - 1) / kChunk * kChunk;
}

// (key, candidate index), best first; ties by index keep plans deterministic.
using Ranked = std::pair<double, std::uint32_t>;
struct Better {
  bool operator()(const Ranked& a, const Ranked& b) const {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }
};

// The order fast-tier data leaves in: outside the target set first, offline
// before default before online, low priority first, coldest first.
struct VictimKey {
  std::uint8_t in_target;
  int class_rank;
  int priority;
  double density;
  std::uint32_t index;
};
struct LeavesFirst {
  bool operator()(const VictimKey& a, const VictimKey& b) const {
    return std::tie(a.in_target, a.class_rank, a.priority, a.density, a.index) <
           std::tie(b.in_target, b.class_rank, b.priority, b.density, b.index);
  }
};

// Orders `keys` lazily: the first `want` exactly (nth_element + sort), the
// rest only if a caller walks past them. A tick over 1 M regions mostly
// needs the first few thousand.
template <typename Key, typename Less>
class LazyOrder {
 public:
  LazyOrder(std::vector<Key> keys, std::size_t want) : keys_(std::move(keys)) {
    sorted_ = std::min(want, keys_.size());
    std::nth_element(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(sorted_),
                     keys_.end(), Less{});
    std::sort(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(sorted_), Less{});
  }
  std::size_t size() const { return keys_.size(); }
  const Key& operator[](std::size_t i) {
    if (i >= sorted_) {
      std::sort(keys_.begin() + static_cast<std::ptrdiff_t>(sorted_), keys_.end(), Less{});
      sorted_ = keys_.size();
    }
    return keys_[i];
  }

 private:
  std::vector<Key> keys_;
  std::size_t sorted_ = 0;
};

class BalancedPolicy final : public Policy {
 public:
  explicit BalancedPolicy(Settings settings) : settings_(settings) {
    history_.configure(settings.min_residency_s, settings.backoff_s, settings.bounce_limit);
  }

  Plan plan(const Snapshot& snapshot) override {
    Plan plan;
    history_.expire(snapshot.now_s);
    NodeLedger ledger(snapshot, settings_.low_free_pct, settings_.high_free_pct);
    if (ledger.nodes().empty()) return plan;
    const unsigned fast_tier = ledger.fastest_tier();
    unsigned max_node = 0;
    for (unsigned node : ledger.nodes()) max_node = std::max(max_node, node);
    // Per-node facts as flat tables: the loops below touch them per region.
    std::vector<std::int8_t> on_fast_node(max_node + 1, -1);  // -1 unknown node
    for (unsigned node : ledger.nodes()) on_fast_node[node] = ledger.tier(node) == fast_tier;
    Budget budget(settings_.budget_mbps, snapshot.budget_mbps, snapshot.tick_s);
    const std::size_t workloads = snapshot.workloads.size();
    std::vector<Budget> workload_budgets;
    for (const WorkloadState& w : snapshot.workloads) {
      workload_budgets.emplace_back(w.budget_mbps, 0, snapshot.tick_s);
    }

    // Everything with a known node, and what each workload has on the fast
    // tier. The big buffers are members: reused, not re-faulted, each tick.
    std::vector<Candidate>& all = all_;
    all.clear();
    std::vector<std::uint64_t> fast_bytes(workloads, 0);
    std::uint64_t min_bytes = ~std::uint64_t{0}, total_bytes = 0;
    for (std::size_t wi = 0; wi < workloads; ++wi) {
      const WorkloadState& w = snapshot.workloads[wi];
      const int cpu = home_cpu_node(snapshot, w);
      for (const Region& r : w.regions) {
        if (r.node < 0 || static_cast<unsigned>(r.node) > max_node ||
            on_fast_node[static_cast<unsigned>(r.node)] < 0 || r.end <= r.start) {
          continue;
        }
        const bool on_fast = on_fast_node[static_cast<unsigned>(r.node)] == 1;
        all.push_back({&w, &r, wi, cpu, static_cast<unsigned>(r.node),
                       r.heat / (static_cast<double>(r.bytes()) / kMiB), on_fast});
        if (on_fast) fast_bytes[wi] += r.bytes();
        min_bytes = std::min(min_bytes, r.bytes());
        total_bytes += r.bytes();
      }
    }
    if (all.empty()) return plan;

    // Node orders and latencies from each CPU node, computed once per tick.
    std::map<std::pair<int, unsigned>, std::vector<unsigned>> nearest_cache;
    auto nearest = [&](int cpu_node, unsigned tier_rank) -> const std::vector<unsigned>& {
      auto [it, fresh] = nearest_cache.try_emplace({cpu_node, tier_rank});
      if (fresh) it->second = nearest_of_tier(snapshot, ledger, cpu_node, tier_rank);
      return it->second;
    };
    std::map<int, std::vector<double>> latency_from;  // cpu node → by memory node
    auto latency_row = [&](int cpu_node) -> const std::vector<double>& {
      auto [it, fresh] = latency_from.try_emplace(cpu_node);
      if (fresh) {
        it->second.assign(max_node + 1, 0.0);
        for (unsigned node : ledger.nodes()) {
          it->second[node] = latency_ns(snapshot, ledger, cpu_node, node);
        }
      }
      return it->second;
    };

    // The adaptive threshold: fill the fast tier's usable capacity with the
    // densest data, incumbents favoured by the hysteresis so equal heat does
    // not swap places; quotas cap each workload's share of it.
    std::uint64_t capacity = 0;
    for (const NodeState& n : snapshot.nodes) {
      if (n.tier == fast_tier && n.total_bytes > ledger.high(n.node)) {
        capacity += n.total_bytes - ledger.high(n.node);
      }
    }
    std::vector<Ranked>& keys = keys_;
    keys.clear();
    for (std::uint32_t i = 0; i < all.size(); ++i) {
      if (all[i].density > 0) {
        keys.emplace_back(all[i].density * (all[i].on_fast ? 1 + settings_.hysteresis : 1.0), i);
      }
    }
    const double average = static_cast<double>(total_bytes) / static_cast<double>(all.size());
    std::vector<std::uint8_t>& in_target = in_target_;
    std::vector<std::uint8_t>& moved = moved_;
    in_target.assign(all.size(), 0);
    moved.assign(all.size(), 0);
    std::vector<std::uint64_t> target_bytes(workloads, 0);
    double threshold = 0;
    bool quotas = false;
    for (const WorkloadState& w : snapshot.workloads) quotas |= w.quota_bytes.has_value();
    if (!quotas && min_bytes * all.size() == total_bytes) {
      // Equal regions (HeatMap granules) and no quota: the target set is the
      // top capacity/size of them, found by selection without sorting.
      const std::size_t fit = std::min<std::size_t>(keys.size(), capacity / min_bytes);
      if (fit > 0) {
        std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(fit - 1),
                         keys.end(), Better{});
        threshold = all[keys[fit - 1].second].density;
        for (std::size_t k = 0; k < fit; ++k) in_target[keys[k].second] = 1;
      }
    } else {
      LazyOrder<Ranked, Better> ranked(
          keys, static_cast<std::size_t>(static_cast<double>(capacity) / average * 1.25) + 64);
      std::uint64_t filled = 0;
      for (std::size_t k = 0; k < ranked.size() && capacity - filled >= min_bytes; ++k) {
        const Candidate& c = all[ranked[k].second];
        const std::uint64_t bytes = c.region->bytes();
        if (filled + bytes > capacity) continue;  // a smaller, colder one may still fit
        if (c.workload->quota_bytes &&
            target_bytes[c.workload_index] + bytes > *c.workload->quota_bytes) {
          continue;
        }
        in_target[ranked[k].second] = 1;
        target_bytes[c.workload_index] += bytes;
        filled += bytes;
        threshold = c.density;
      }
    }

    // Bytes the budgets leave for one more move of candidate i.
    auto budget_left = [&](std::size_t i) {
      std::uint64_t left = ~std::uint64_t{0};
      if (auto global = budget.remaining()) left = *global;
      if (auto own = workload_budgets[all[i].workload_index].remaining()) {
        left = std::min(left, *own);
      }
      return left;
    };
    // Moves the first `bytes` of region i (all of it, or a chunk of it when
    // a budget or the room left is smaller: a 2 GiB hot range still moves,
    // a chunk per tick).
    auto emit = [&](std::size_t i, unsigned to, std::uint64_t bytes, std::string reason) {
      const Candidate& c = all[i];
      Region part = *c.region;
      part.end = part.start + bytes;
      plan.moves.push_back({part.pid, part.start, part.end, to, c.workload->id, std::move(reason)});
      const bool now_fast = ledger.tier(to) == fast_tier;
      ledger.move(static_cast<int>(c.node), to, bytes);
      if (c.on_fast && !now_fast) fast_bytes[c.workload_index] -= bytes;
      if (!c.on_fast && now_fast) fast_bytes[c.workload_index] += bytes;
      budget.spend(bytes);
      workload_budgets[c.workload_index].spend(bytes);
      history_.record(part, snapshot.now_s);
      moved[i] = 1;
    };
    auto movable = [&](std::size_t i) {
      return !moved[i] &&
             budget_left(i) >= std::min<std::uint64_t>(kChunk, all[i].region->bytes()) &&
             history_.may_move(*all[i].region, snapshot.now_s);
    };
    // Demotes up to `want` bytes of region i to the nearest slower node with
    // room above its high mark; returns the bytes moved.
    auto demote = [&](std::size_t i, std::uint64_t want,
                      const std::string& reason) -> std::uint64_t {
      if (!movable(i)) return 0;
      const Candidate& c = all[i];
      for (unsigned t = fast_tier + 1; t <= fast_tier + 8; ++t) {
        for (unsigned node : nearest(c.cpu_node, t)) {
          const std::uint64_t bytes =
              chunk(std::min({chunks_covering(want), budget_left(i), ledger.room_above_high(node)}),
                    c.region->bytes());
          if (bytes == 0) continue;
          emit(i, node, bytes, reason);
          return bytes;
        }
      }
      return 0;
    };
    // What one tick can move, in regions: how far the lazy orders sort.
    const double per_tick = budget.remaining() ? static_cast<double>(*budget.remaining())
                                               : static_cast<double>(total_bytes);
    const auto per_tick_regions = static_cast<std::size_t>(per_tick / average * 2) + 64;
    // Fast-tier data in the order it leaves (VictimKey), ordered only when
    // something has to leave and only as far as it is walked.
    std::optional<LazyOrder<VictimKey, LeavesFirst>> victims;
    auto victim = [&](std::size_t k) -> std::optional<std::uint32_t> {
      if (!victims) {
        std::vector<VictimKey> leaving;
        for (std::uint32_t i = 0; i < all.size(); ++i) {
          if (!all[i].on_fast) continue;
          leaving.push_back({in_target[i], class_rank(all[i].workload->workload_class),
                             all[i].workload->priority, all[i].density, i});
        }
        victims.emplace(std::move(leaving), per_tick_regions);
      }
      if (k >= victims->size()) return std::nullopt;
      return (*victims)[k].index;
    };

    // 1. Pressure: a fast node under its low watermark is brought back to high.
    for (unsigned node : ledger.nodes_of_tier(fast_tier)) {
      if (!ledger.below_low(node)) continue;
      for (std::size_t k = 0; ledger.free(node) < ledger.high(node); ++k) {
        const std::optional<std::uint32_t> v = victim(k);
        if (!v) break;
        if (all[*v].node != node) continue;
        demote(*v, ledger.high(node) - ledger.free(node),
               "demote: node " + std::to_string(node) + " under its low free watermark");
      }
    }
    // 2. Quotas: a workload over its fast-tier quota gives back its coldest.
    bool over_quota = false;
    for (std::size_t wi = 0; wi < workloads; ++wi) {
      const auto& quota = snapshot.workloads[wi].quota_bytes;
      over_quota |= quota && fast_bytes[wi] > *quota;
    }
    for (std::size_t k = 0; over_quota; ++k) {
      const std::optional<std::uint32_t> v = victim(k);
      if (!v) break;
      const auto& quota = all[*v].workload->quota_bytes;
      const std::uint64_t have = fast_bytes[all[*v].workload_index];
      if (quota && have > *quota) demote(*v, have - *quota, "demote: over the fast-tier quota");
    }
    // 3. Promotion by heat × latency benefit, making room from colder data.
    std::vector<Ranked> promotion_keys;
    int last_cpu = -2;
    const std::vector<double>* row = nullptr;
    double best_fast = 0;
    for (std::uint32_t i = 0; i < all.size(); ++i) {
      const Candidate& c = all[i];
      if (c.on_fast || !in_target[i]) continue;
      if (c.cpu_node != last_cpu) {  // regions of one workload share a CPU node
        const std::vector<unsigned>& fast_nodes = nearest(c.cpu_node, fast_tier);
        row = &latency_row(c.cpu_node);
        best_fast = fast_nodes.empty() ? 0 : (*row)[fast_nodes.front()];
        last_cpu = c.cpu_node;
      }
      const double benefit = (*row)[c.node] - best_fast;
      promotion_keys.emplace_back(c.density * std::max(benefit, 1.0), i);
    }
    LazyOrder<Ranked, Better> promotions(std::move(promotion_keys), per_tick_regions);
    // Each fast node walks the victim order with its own cursor: victims on
    // another node stay for that node's promotions.
    std::map<unsigned, std::size_t> next_victim;
    for (std::size_t k = 0; k < promotions.size(); ++k) {
      if (!budget.allows(std::min<std::uint64_t>(kChunk, min_bytes))) break;
      const std::size_t i = promotions[k].second;
      const Candidate& c = all[i];
      if (!movable(i)) continue;
      std::uint64_t want = std::min(c.region->bytes(), budget_left(i));
      if (const auto& quota = c.workload->quota_bytes) {
        const std::uint64_t have = fast_bytes[c.workload_index];
        want = std::min(want, have >= *quota ? 0 : *quota - have);
      }
      if (chunk(want, c.region->bytes()) == 0) continue;
      auto best_room = [&]() -> std::pair<unsigned, std::uint64_t> {
        for (unsigned node : nearest(c.cpu_node, fast_tier)) {
          if (ledger.room_above_high(node) >= std::min(want, kChunk)) {
            return {node, ledger.room_above_high(node)};
          }
        }
        const auto& fast_nodes = nearest(c.cpu_node, fast_tier);
        return {fast_nodes.empty() ? 0 : fast_nodes.front(), 0};
      };
      auto [to, room] = best_room();
      // Not enough room: demote colder non-target data (the hysteresis is in
      // the ranking above) to make it, half the budget each way. Swapping
      // costs two moves: only on evidence above sampling noise.
      if (room < want && c.region->heat >= settings_.exchange_min_heat) {
        want = std::min(want, budget_left(i) / 2);
        std::size_t& cursor = next_victim[to];
        while (room < want) {
          const std::optional<std::uint32_t> v = victim(cursor);
          if (!v || in_target[*v]) break;
          if (all[*v].node != to) {
            ++cursor;
            continue;
          }
          const std::uint64_t freed =
              demote(*v, want - room, room_reason(c.density, all[*v].density));
          if (freed == 0 || moved[*v]) ++cursor;
          room = ledger.room_above_high(to);
        }
      }
      const std::uint64_t bytes = chunk(std::min({want, room, budget_left(i)}), c.region->bytes());
      if (bytes == 0 || moved[i]) continue;
      emit(i, to, bytes, promote_reason(c.density, threshold));
    }
    return plan;
  }

 private:
  Settings settings_;
  MoveHistory history_;
  std::vector<Candidate> all_;
  std::vector<Ranked> keys_;
  std::vector<std::uint8_t> in_target_, moved_;
};

}  // namespace

PolicyInfo balanced_policy_info() {
  return {
      "balanced",
      "hottest data that fits the fast tier, ranked by heat x latency benefit; watermarks, "
      "quotas, budgets, anti-thrash",
      {{"budget_mbps", 256, 0, 100000, "migration budget per second for all workloads (0 = none)"},
       {"low_free_pct", 2, 0, 50, "demote when a fast node's free memory falls below this %"},
       {"high_free_pct", 4, 0, 60, "promote only while a fast node keeps this % free"},
       {"min_residency_s", 30, 0, 3600, "a moved region stays at least this long"},
       {"backoff_s", 120, 0, 86400, "window for bounce counting, and how long a bouncer is held"},
       {"bounce_limit", 3, 0, 100, "moves within backoff_s that make a region a bouncer"},
       {"hysteresis", 1, 0, 10, "heat advantage a region needs to displace a resident one"},
       {"exchange_min_heat", 2, 0, 1e9,
        "heat (decayed samples) a region needs before colder data is demoted for it"}},
      [](const Params& p) -> std::unique_ptr<Policy> {
        return std::make_unique<BalancedPolicy>(
            Settings{p.at("budget_mbps"), p.at("low_free_pct"), p.at("high_free_pct"),
                     p.at("min_residency_s"), p.at("backoff_s"), p.at("hysteresis"),
                     static_cast<unsigned>(p.at("bounce_limit")), p.at("exchange_min_heat")});
      }};
}

}  // namespace tier::policy
