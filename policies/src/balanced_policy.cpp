#include "balanced_policy.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <optional>
#include <unordered_set>

#include "placement_common.hpp"

namespace tier::policy {

namespace {

struct Settings {
  double budget_mbps, burst_s, low_free_pct, high_free_pct, min_residency_s, residency_clear_ratio,
      backoff_s, hysteresis;
  unsigned bounce_limit;
  double exchange_min_heat, confirm_heat;
};

// (pid, 2 MiB block of a region's start): where an exchange that waits for a
// second tick of evidence is remembered. pid_max is at most 2^22 and a block
// index at most 2^36 (57-bit addresses), so the key is exact.
std::uint64_t block_key(const Region& r) {
  return static_cast<std::uint64_t>(r.pid) << 40 | r.start >> 21;
}

// A region "cools" when its accesses this epoch fall to a quarter of what its
// decayed heat implies, and the heat implies enough samples (8) for the drop
// to be beyond sampling noise (Poisson(8) gives 2 or fewer 1.4% of the time).
constexpr double kCoolingMinSamples = 8;
constexpr double kCoolingDrop = 4;

// offline data leaves the fast tier first, online last.
int class_rank(const std::string& workload_class) {
  if (workload_class == "offline") return 0;
  if (workload_class == "online") return 2;
  return 1;
}

// One region with a known node, compact: a tick walks a million of them,
// several times, and should not go back to the snapshot's regions for that.
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

// The ranking key's top 16 bits: positive doubles order as their bit
// patterns, so this buckets keys in sixteenths of a power of two, in order.
std::uint32_t bucket_of(double key) {
  return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(key) >> 48);
}
constexpr std::size_t kBuckets = 1 << 15;  // the sign bit is 0

// Reasons are built for every planned move (thousands a tick): to_chars,
// not printf. Three significant digits, as %.3g.
void append_number(std::string& out, double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value, std::chars_format::general, 3);
  out.append(text, result.ptr);
}

std::string promote_reason(double density, double threshold) {
  std::string text = "promote: heat ";
  append_number(text, density);
  text += "/MiB over threshold ";
  append_number(text, threshold);
  text += "/MiB";
  return text;
}

std::string room_reason(double hotter, double colder) {
  std::string text = "demote: room for hotter data (";
  append_number(text, hotter);
  text += "/MiB over ";
  append_number(text, colder);
  text += "/MiB)";
  return text;
}

std::string pressure_reason(unsigned node) {
  return "demote: node " + std::to_string(node) + " under its low free watermark";
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
// Packed into one integer, most significant first: in the target set (1
// bit), class rank (2), priority (16, clamped and biased), density (the top
// 45 bits of the double: sign 0, exponent, 33 bits of mantissa — densities
// closer than 1e-10 relative tie and fall to the index).
struct VictimKey {
  std::uint64_t order;
  std::uint32_t index;
};
VictimKey victim_key(bool in_target, int class_rank, int priority, double density,
                     std::uint32_t index) {
  const auto biased = static_cast<std::uint64_t>(std::clamp(priority, -32768, 32767) + 32768);
  return {std::uint64_t{in_target} << 63 | static_cast<std::uint64_t>(class_rank) << 61 |
              biased << 45 | std::bit_cast<std::uint64_t>(std::max(density, 0.0)) >> 18,
          index};
}
struct LeavesFirst {
  bool operator()(const VictimKey& a, const VictimKey& b) const {
    return a.order < b.order || (a.order == b.order && a.index < b.index);
  }
};

// Orders `keys` lazily: the first `want` exactly (nth_element + sort), the
// rest a block at a time, only if a caller walks past them. A tick over 1 M
// regions mostly needs the first few thousand.
template <typename Key, typename Less>
class LazyOrder {
 public:
  void reset(std::size_t want) {
    want_ = std::max<std::size_t>(want, 64);
    sorted_ = 0;
  }
  std::vector<Key>& keys() { return keys_; }
  std::size_t size() const { return keys_.size(); }
  const Key& operator[](std::size_t i) {
    while (i >= sorted_) extend();
    return keys_[i];
  }

 private:
  void extend() {
    const std::size_t next = std::min(keys_.size(), sorted_ + want_);
    const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    const auto middle = keys_.begin() + static_cast<std::ptrdiff_t>(next);
    if (next < keys_.size()) std::nth_element(first, middle, keys_.end(), Less{});
    std::sort(first, middle, Less{});
    sorted_ = next;
    want_ *= 2;  // walking far: larger blocks, O(n log n) overall at worst
  }
  std::vector<Key> keys_;
  std::size_t sorted_ = 0, want_ = 64;
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
    if (max_node > 0xffff) return plan;  // node ids are small; a corrupt snapshot moves nothing
    // Per-node facts as flat tables: the loops below touch them per region.
    std::vector<std::int8_t> on_fast_node(max_node + 1, -1);  // -1 unknown node
    for (unsigned node : ledger.nodes()) on_fast_node[node] = ledger.tier(node) == fast_tier;
    // The policy's own budget is a token bucket: budget_mbps accrues every
    // tick, and what a tick leaves unused carries over up to burst_s seconds'
    // worth, so a phase change can be followed at once by a burst that the
    // quiet ticks before it paid for. The snapshot's budget caps every tick.
    std::optional<std::uint64_t> own;
    if (settings_.budget_mbps > 0) {
      const double rate = settings_.budget_mbps * kMiB;
      const double tick = std::max(snapshot.tick_s, 0.0);
      const double cap = rate * std::max(settings_.burst_s, tick);
      tokens_ = std::min(cap, tokens_ + rate * tick);
      own = static_cast<std::uint64_t>(tokens_);
    }
    Budget budget(own, snapshot.budget_mbps, snapshot.tick_s);
    const std::uint64_t budget_at_start =
        budget.remaining() ? *budget.remaining() : ~std::uint64_t{0};
    const std::size_t workloads = snapshot.workloads.size();
    std::vector<Budget> workload_budgets;
    std::vector<int> cpu_of(workloads), class_of(workloads);
    // While offline data is out of the target set (demote_offline_first,
    // below) none of it is promoted, and its demotions make room for online
    // data: its own budget does not hold them back (the global one does).
    const bool offline_out = snapshot.demote_offline_first;
    for (std::size_t wi = 0; wi < workloads; ++wi) {
      const WorkloadState& w = snapshot.workloads[wi];
      class_of[wi] = class_rank(w.workload_class);
      const bool unbudgeted = offline_out && class_of[wi] == class_rank("offline");
      workload_budgets.emplace_back(unbudgeted ? 0.0 : w.budget_mbps, 0, snapshot.tick_s);
      cpu_of[wi] = home_cpu_node(snapshot, w);
    }

    // Everything with a known node, and what each workload has on the fast
    // tier. The big buffers are members: reused, not re-faulted, each tick.
    std::vector<Candidate>& all = all_;
    all.clear();
    std::vector<std::uint64_t> fast_bytes(workloads, 0);
    std::uint64_t min_bytes = ~std::uint64_t{0}, total_bytes = 0;
    double sum_heat = 0, sum_accesses = 0;
    for (std::size_t wi = 0; wi < workloads; ++wi) {
      const WorkloadState& w = snapshot.workloads[wi];
      for (const Region& r : w.regions) {
        if (r.node < 0 || static_cast<unsigned>(r.node) > max_node ||
            on_fast_node[static_cast<unsigned>(r.node)] < 0 || r.end <= r.start) {
          continue;
        }
        const bool on_fast = on_fast_node[static_cast<unsigned>(r.node)] == 1;
        const std::uint64_t bytes = r.bytes();
        all.push_back({&r, r.heat * kMiB / static_cast<double>(bytes), static_cast<float>(r.heat),
                       static_cast<float>(r.accesses), static_cast<std::uint32_t>(wi),
                       static_cast<std::uint16_t>(r.node), static_cast<std::uint8_t>(on_fast), 0});
        if (on_fast) fast_bytes[wi] += bytes;
        min_bytes = std::min(min_bytes, bytes);
        total_bytes += bytes;
        sum_heat += r.heat;
        sum_accesses += static_cast<double>(r.accesses);
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
    // The same, less the nodes a workload may not use (its cpuset's mems).
    std::map<std::pair<std::size_t, unsigned>, std::vector<unsigned>> allowed_cache;
    auto nearest_for = [&](std::size_t wi, unsigned tier_rank) -> const std::vector<unsigned>& {
      const std::vector<unsigned>& any = nearest(cpu_of[wi], tier_rank);
      if (snapshot.workloads[wi].allowed_nodes.empty()) return any;
      auto [it, fresh] = allowed_cache.try_emplace({wi, tier_rank});
      if (fresh) it->second = allowed_only(any, snapshot.workloads[wi]);
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
    // not swap places; quotas cap each workload's share of it. A cooling
    // region (its accesses this epoch far under what its heat implies, heat
    // per sample = Σheat / Σaccesses of the tick) ranks by its current rate
    // and without the incumbent's advantage: after a phase change the old
    // hot set is judged by what it gets now, not by its decaying past.
    const double heat_per_sample = sum_accesses > 0 ? sum_heat / sum_accesses : 0;
    std::uint64_t capacity = 0;
    for (const NodeState& n : snapshot.nodes) {
      if (n.tier == fast_tier && n.total_bytes > ledger.high(n.node)) {
        capacity += n.total_bytes - ledger.high(n.node);
      }
    }
    const double incumbent = 1 + settings_.hysteresis;
    // Under offline suppression's memory signals offline data has no place
    // in the target set: key 0 keeps it out, so it is the first to leave a
    // fast node that online data needs and none of it is promoted.
    auto key_of = [&](const Candidate& c) {
      if (offline_out && class_of[c.workload] == class_rank("offline")) return 0.0;
      return c.density * (c.on_fast && !c.cooling ? incumbent : 1.0);
    };
    // The cooling test, then the ranking key (the first pass of either way
    // of selecting below).
    auto settle = [&](Candidate& c) {
      if (heat_per_sample > 0) {
        const double expected = c.heat / heat_per_sample;
        const double seen = c.accesses;
        if (expected >= kCoolingMinSamples && seen * kCoolingDrop <= expected) {
          c.cooling = 1;
          c.density = seen * heat_per_sample * kMiB / static_cast<double>(c.region->bytes());
        }
      }
      return key_of(c);
    };
    const double average = static_cast<double>(total_bytes) / static_cast<double>(all.size());
    std::vector<std::uint8_t>& in_target = in_target_;
    std::vector<std::uint8_t>& moved = moved_;
    in_target.assign(all.size(), 0);
    moved.assign(all.size(), 0);
    std::vector<std::uint64_t> target_bytes(workloads, 0);
    double threshold = 0;  // density of the last region admitted
    bool quotas = false;
    for (const WorkloadState& w : snapshot.workloads) quotas |= w.quota_bytes.has_value();
    // Promotion candidates (target regions not on the fast tier) keyed by
    // heat × latency benefit: the latency from the workload's CPU node to
    // where the region is, minus to its nearest fast node.
    std::vector<const std::vector<double>*> row_of(workloads);
    std::vector<double> best_fast_of(workloads);
    for (std::size_t wi = 0; wi < workloads; ++wi) {
      const std::vector<unsigned>& fast_nodes = nearest_for(wi, fast_tier);
      row_of[wi] = &latency_row(cpu_of[wi]);
      best_fast_of[wi] = fast_nodes.empty() ? 0 : (*row_of[wi])[fast_nodes.front()];
    }
    std::vector<Ranked>& promotion_keys = promotions_.keys();
    promotion_keys.clear();
    auto add_promotion = [&](std::uint32_t i) {
      const Candidate& c = all[i];
      const double benefit = (*row_of[c.workload])[c.node] - best_fast_of[c.workload];
      promotion_keys.emplace_back(c.density * std::max(benefit, 1.0), i);
    };
    // Fast-tier data of each fast node, to be ordered the way it leaves
    // (VictimKey) when something has to leave.
    victims_.resize(max_node + 1);
    for (auto& order : victims_) order.keys().clear();
    bool victims_built = false;
    auto add_victim = [&](std::uint32_t i) {
      const Candidate& c = all[i];
      victims_[c.node].keys().push_back(victim_key(in_target[i] != 0, class_of[c.workload],
                                                   snapshot.workloads[c.workload].priority,
                                                   c.density, i));
    };
    std::vector<Ranked>& keys = keys_;
    keys.clear();
    if (!quotas && min_bytes * all.size() == total_bytes) {
      // Equal regions (HeatMap granules) and no quota: the target set is the
      // top capacity/size of them. A histogram of the keys finds the bucket
      // the last one falls in; only that bucket is selected exactly.
      std::vector<std::uint32_t>& counts = bucket_counts_;
      counts.assign(kBuckets, 0);
      std::size_t positive = 0;
      for (Candidate& c : all) {
        const double key = settle(c);
        if (key > 0) ++counts[bucket_of(key)], ++positive;
      }
      const std::size_t fit = std::min<std::size_t>(positive, capacity / min_bytes);
      if (fit > 0) {
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
        std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(need - 1),
                         keys.end(), Better{});
        threshold = all[keys[need - 1].second].density;
        for (std::size_t k = 0; k < keys.size(); ++k) {
          const std::uint32_t i = keys[k].second;
          in_target[i] = k < need;
          if (k < need && !all[i].on_fast) add_promotion(i);
          if (all[i].on_fast) add_victim(i);
        }
        victims_built = true;
      }
    } else {
      for (std::uint32_t i = 0; i < all.size(); ++i) {
        const double key = settle(all[i]);
        if (key > 0) keys.emplace_back(key, i);
      }
      LazyOrder<Ranked, Better>& ranked = ranked_;
      ranked.keys().swap(keys);
      ranked.reset(static_cast<std::size_t>(static_cast<double>(capacity) / average * 1.25) + 64);
      std::uint64_t filled = 0;
      for (std::size_t k = 0; k < ranked.size() && capacity - filled >= min_bytes; ++k) {
        const std::uint32_t i = ranked[k].second;
        const Candidate& c = all[i];
        const std::uint64_t bytes = c.region->bytes();
        if (filled + bytes > capacity) continue;  // a smaller, colder one may still fit
        const auto& quota = snapshot.workloads[c.workload].quota_bytes;
        if (quota && target_bytes[c.workload] + bytes > *quota) continue;
        in_target[i] = 1;
        if (!c.on_fast) add_promotion(i);
        target_bytes[c.workload] += bytes;
        filled += bytes;
        threshold = c.density;
      }
      ranked.keys().swap(keys);
    }

    // The minimum residency holds a region only while its heat is ambiguous:
    // one clearly above the threshold (residency_clear_ratio times it, with
    // heat at least confirm_heat: evidence above sampling noise) may be
    // promoted, and a cooling one demoted, however recently it moved. The
    // bounce hold is never waived. A region merely colder than the threshold
    // is what the residency is for: demoting it early and promoting it again
    // on its next burst of samples is the ping-pong the residency prevents.
    const double clear = settings_.residency_clear_ratio;
    auto clearly_hot = [&](std::size_t i) {
      return threshold > 0 && all[i].density >= clear * threshold &&
             all[i].region->heat >= settings_.confirm_heat;
    };

    // Bytes the budgets leave for one more move of candidate i.
    auto budget_left = [&](std::size_t i) {
      std::uint64_t left = ~std::uint64_t{0};
      if (auto global = budget.remaining()) left = *global;
      if (auto mine = workload_budgets[all[i].workload].remaining()) left = std::min(left, *mine);
      return left;
    };
    // A region moves whole, or in chunks when a budget or the room left is
    // smaller (a 2 GiB hot range still moves, a chunk per tick), around the
    // blocks its history holds; a victim may give several chunks in one
    // tick. partly_moved: how far into region i this tick's moves reached.
    std::unordered_map<std::uint32_t, std::uint64_t> partly_moved;
    auto part_of = [&](std::size_t i, bool waive_residency) -> std::optional<Region> {
      if (moved[i]) return std::nullopt;
      Region r = *all[i].region;
      if (auto it = partly_moved.find(static_cast<std::uint32_t>(i)); it != partly_moved.end()) {
        r.start += it->second;
      }
      std::optional<Region> part = history_.movable_part(r, snapshot.now_s, waive_residency);
      if (!part || budget_left(i) < std::min<std::uint64_t>(kChunk, part->bytes())) {
        return std::nullopt;
      }
      return part;
    };
    // Moves the first `bytes` of `part` (of region i) to `to`.
    auto emit = [&](std::size_t i, Region part, unsigned to, std::uint64_t bytes,
                    std::string reason) {
      const Candidate& c = all[i];
      part.end = part.start + bytes;
      plan.moves.push_back({part.pid, part.start, part.end, to, snapshot.workloads[c.workload].id,
                            std::move(reason)});
      const bool now_fast = ledger.tier(to) == fast_tier;
      ledger.move(static_cast<int>(c.node), to, bytes);
      if (c.on_fast && !now_fast) fast_bytes[c.workload] -= bytes;
      if (!c.on_fast && now_fast) fast_bytes[c.workload] += bytes;
      budget.spend(bytes);
      workload_budgets[c.workload].spend(bytes);
      history_.record(part, snapshot.now_s);
      if (part.end >= c.region->end) {
        moved[i] = 1;
      } else {
        partly_moved[static_cast<std::uint32_t>(i)] = part.end - c.region->start;
      }
    };
    // Demotes up to `want` bytes of region i to the nearest slower node with
    // room above its high mark; returns the bytes moved. `reason` is only
    // built for a move that happens.
    auto demote = [&](std::size_t i, std::uint64_t want, auto reason) -> std::uint64_t {
      const std::optional<Region> part = part_of(i, all[i].cooling);
      if (!part) return 0;
      const Candidate& c = all[i];
      for (unsigned t = fast_tier + 1; t <= fast_tier + 8; ++t) {
        for (unsigned node : nearest_for(c.workload, t)) {
          const std::uint64_t bytes =
              chunk(std::min({chunks_covering(want), budget_left(i), ledger.room_above_high(node)}),
                    part->bytes());
          if (bytes == 0) continue;
          emit(i, *part, node, bytes, reason());
          return bytes;
        }
      }
      return 0;
    };
    // What one tick can move, in regions: how far the lazy orders sort first
    // (an exchange spends half of it each way: twice what is needed, and
    // the victims shared among the fast nodes).
    const double per_tick = budget.remaining() ? static_cast<double>(*budget.remaining())
                                               : static_cast<double>(total_bytes);
    const auto per_tick_regions = static_cast<std::size_t>(std::min(per_tick / average, 1e9)) + 64;
    const std::size_t fast_node_count =
        std::max<std::size_t>(ledger.nodes_of_tier(fast_tier).size(), 1);
    // Fast-tier data of each fast node in the order it leaves (VictimKey),
    // ordered only when something has to leave that node and only as far as
    // it is walked.
    bool victims_ordered = false;
    auto victim = [&](unsigned node, std::size_t k) -> std::optional<std::uint32_t> {
      if (!victims_ordered) {
        victims_ordered = true;
        if (!victims_built) {  // one pass for every fast node
          for (std::uint32_t i = 0; i < all.size(); ++i) {
            if (all[i].on_fast) add_victim(i);
          }
        }
        for (auto& order : victims_) order.reset(per_tick_regions / fast_node_count);
      }
      LazyOrder<VictimKey, LeavesFirst>& order = victims_[node];
      if (k >= order.size()) return std::nullopt;
      return order[k].index;
    };

    // 1. Pressure: a fast node under its low watermark is brought back to high.
    for (unsigned node : ledger.nodes_of_tier(fast_tier)) {
      if (!ledger.below_low(node)) continue;
      for (std::size_t k = 0; ledger.free(node) < ledger.high(node); ++k) {
        const std::optional<std::uint32_t> v = victim(node, k);
        if (!v) break;
        demote(*v, ledger.high(node) - ledger.free(node), [&] { return pressure_reason(node); });
      }
    }
    // 2. Quotas: a workload over its fast-tier quota gives back its coldest.
    for (unsigned node : ledger.nodes_of_tier(fast_tier)) {
      bool over_quota = false;
      for (std::size_t wi = 0; wi < workloads; ++wi) {
        const auto& quota = snapshot.workloads[wi].quota_bytes;
        over_quota |= quota && fast_bytes[wi] > *quota;
      }
      for (std::size_t k = 0; over_quota; ++k) {
        const std::optional<std::uint32_t> v = victim(node, k);
        if (!v) break;
        const std::uint32_t wi = all[*v].workload;
        const auto& quota = snapshot.workloads[wi].quota_bytes;
        if (quota && fast_bytes[wi] > *quota) {
          demote(*v, fast_bytes[wi] - *quota,
                 [] { return std::string("demote: over the fast-tier quota"); });
        }
      }
    }
    // 3. Promotion by heat × latency benefit, making room from colder data.
    LazyOrder<Ranked, Better>& promotions = promotions_;
    promotions.reset(per_tick_regions);
    // Each fast node walks its own victim order with its own cursor.
    std::vector<std::size_t> next_victim(max_node + 1, 0);
    // An exchange on evidence under confirm_heat waits for a second tick
    // that still wants it (sampling noise rarely repeats; a warm region
    // does): the wanting ones are remembered for the next tick, as many as
    // a tick can move.
    wanted_before_.swap(wanted_);
    wanted_.clear();
    for (std::size_t k = 0; k < promotions.size(); ++k) {
      if (!budget.allows(std::min<std::uint64_t>(kChunk, min_bytes))) break;
      const std::size_t i = promotions[k].second;
      const Candidate& c = all[i];
      const std::optional<Region> part = part_of(i, clearly_hot(i));
      if (!part) continue;
      const WorkloadState& w = snapshot.workloads[c.workload];
      std::uint64_t want = std::min(part->bytes(), budget_left(i));
      if (w.quota_bytes) {
        const std::uint64_t have = fast_bytes[c.workload];
        want = std::min(want, have >= *w.quota_bytes ? 0 : *w.quota_bytes - have);
      }
      if (chunk(want, part->bytes()) == 0) continue;
      const std::vector<unsigned>& fast_nodes = nearest_for(c.workload, fast_tier);
      if (fast_nodes.empty()) continue;  // no fast node it may use
      auto best_room = [&]() -> std::pair<unsigned, std::uint64_t> {
        for (unsigned node : fast_nodes) {
          if (ledger.room_above_high(node) >= std::min(want, kChunk)) {
            return {node, ledger.room_above_high(node)};
          }
        }
        return {fast_nodes.front(), 0};
      };
      auto [to, room] = best_room();
      // Not enough room: demote colder non-target data (the hysteresis is in
      // the ranking above) to make it, half the budget each way. Swapping
      // costs two moves: only on evidence above sampling noise.
      if (room < want && c.region->heat >= settings_.exchange_min_heat &&
          c.region->heat < settings_.confirm_heat) {
        const std::uint64_t key = block_key(*c.region);
        if (!wanted_before_.contains(key)) {
          if (wanted_.size() < per_tick_regions) wanted_.insert(key);
          if (room == 0) continue;
        }
      }
      if (room < want && c.region->heat >= settings_.exchange_min_heat) {
        want = std::min(want, budget_left(i) / 2);
        std::size_t& cursor = next_victim[to];
        while (room < want) {
          const std::optional<std::uint32_t> v = victim(to, cursor);
          if (!v || in_target[*v]) break;
          const std::uint64_t freed =
              demote(*v, want - room, [&] { return room_reason(c.density, all[*v].density); });
          if (freed == 0 || moved[*v]) ++cursor;
          room = ledger.room_above_high(to);
        }
      }
      const std::uint64_t bytes = chunk(std::min({want, room, budget_left(i)}), part->bytes());
      if (bytes == 0) continue;
      emit(i, *part, to, bytes, promote_reason(c.density, threshold));
    }
    if (settings_.budget_mbps > 0 && budget.remaining()) {
      const std::uint64_t spent = budget_at_start - *budget.remaining();
      tokens_ = std::max(0.0, tokens_ - static_cast<double>(spent));
    }
    return plan;
  }

 private:
  Settings settings_;
  MoveHistory history_;
  double tokens_ = 0;  // the budget's bucket, bytes
  std::vector<Candidate> all_;
  std::vector<Ranked> keys_;
  std::vector<std::uint8_t> in_target_, moved_;
  std::vector<std::uint32_t> bucket_counts_;
  LazyOrder<Ranked, Better> ranked_, promotions_;
  std::vector<LazyOrder<VictimKey, LeavesFirst>> victims_;
  std::unordered_set<std::uint64_t> wanted_, wanted_before_;  // block_key()s
};

}  // namespace

PolicyInfo balanced_policy_info() {
  return {
      "balanced",
      "hottest data that fits the fast tier, ranked by heat x latency benefit; watermarks, "
      "quotas, budgets, anti-thrash",
      {{"budget_mbps", 512, 0, 100000,
        "sustained migration budget per second for all workloads (0 = none)"},
       {"burst_s", 8, 0, 3600,
        "unused budget carries over up to this many seconds' worth (a token bucket)"},
       {"low_free_pct", 2, 0, 50, "demote when a fast node's free memory falls below this %"},
       {"high_free_pct", 4, 0, 60, "promote only while a fast node keeps this % free"},
       {"min_residency_s", 30, 0, 3600,
        "a moved region stays at least this long, unless clearly hot or cooling"},
       {"residency_clear_ratio", 4, 1, 1e6,
        "a region this many times denser than the hot threshold may be promoted within its "
        "minimum residency"},
       {"backoff_s", 120, 0, 86400, "window for bounce counting, and how long a bouncer is held"},
       {"bounce_limit", 3, 0, 100, "moves within backoff_s that make a region a bouncer"},
       {"hysteresis", 1, 0, 10, "heat advantage a region needs to displace a resident one"},
       {"exchange_min_heat", 6, 0, 1e9,
        "heat (decayed samples) a region needs before colder data is demoted for it"},
       {"confirm_heat", 8, 0, 1e9,
        "under this heat an exchange waits for a second tick that still wants it, and the "
        "minimum residency is not lifted"}},
      [](const Params& p) -> std::unique_ptr<Policy> {
        return std::make_unique<BalancedPolicy>(Settings{
            p.at("budget_mbps"), p.at("burst_s"), p.at("low_free_pct"), p.at("high_free_pct"),
            p.at("min_residency_s"), p.at("residency_clear_ratio"), p.at("backoff_s"),
            p.at("hysteresis"), static_cast<unsigned>(p.at("bounce_limit")),
            p.at("exchange_min_heat"), p.at("confirm_heat")});
      }};
}

}  // namespace tier::policy
