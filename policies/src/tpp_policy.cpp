#include "tpp_policy.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "placement_common.hpp"

namespace tier::policy {

namespace {

struct TppSettings {
  double window_s, low_free_pct, high_free_pct, budget_mbps;
};

class TppPolicy final : public Policy {
 public:
  explicit TppPolicy(TppSettings settings) : settings_(settings) {}

  Plan plan(const Snapshot& snapshot) override {
    Plan plan;
    NodeLedger ledger(snapshot, settings_.low_free_pct, settings_.high_free_pct);
    if (ledger.nodes().empty()) return plan;
    const unsigned fast_tier = ledger.fastest_tier();
    Tick tick{.snapshot = snapshot,
              .ledger = std::move(ledger),
              .fast_tier = fast_tier,
              .budget = Budget(settings_.budget_mbps, snapshot.budget_mbps, snapshot.tick_s),
              .plan = plan};
    observe(tick);
    demote_lru(tick);
    promote_hot(tick);
    return plan;
  }

 private:
  static constexpr std::uint64_t kBlock = std::uint64_t{2} << 20;
  using Key = std::pair<pid_t, std::uint64_t>;  // (pid, 2 MiB block)
  struct Entry {
    const WorkloadState* workload;
    const Region* region;
    int cpu_node;
  };
  // What the steps of one tick share.
  struct Tick {
    const Snapshot& snapshot;
    NodeLedger ledger;
    unsigned fast_tier;
    Budget budget;
    Plan& plan;
    std::vector<Entry> fast = {}, hot_slow = {};  // regions on the fast tier; hot ones elsewhere
  };

  // Sorts the regions into the tick's `fast` and `hot_slow`, and remembers
  // which blocks had accesses for the next ticks' second-access test.
  void observe(Tick& tick) {
    const Snapshot& snapshot = tick.snapshot;
    std::map<Key, double> seen_now;
    for (const WorkloadState& w : snapshot.workloads) {
      const int cpu = home_cpu_node(snapshot, w);
      for (const Region& r : w.regions) {
        if (r.node < 0 || !tick.ledger.known(static_cast<unsigned>(r.node))) continue;
        // The kernel judges pages; regions come in any size, so accesses
        // count per 2 MiB of region and the memory of earlier ticks is kept
        // per 2 MiB block (regions change shape between ticks, blocks do not).
        const Key key{r.pid, r.start / kBlock};
        const double per_block = static_cast<double>(r.accesses) * static_cast<double>(kBlock) /
                                 static_cast<double>(std::max<std::uint64_t>(r.bytes(), 1));
        // Two accesses within the window: both in this epoch, or one now and
        // one remembered from an earlier tick (the kernel's second hint fault).
        bool hot = false;
        if (per_block >= 1) {
          auto previous = last_seen_.find(key);
          hot = per_block >= 2 || (previous != last_seen_.end() &&
                                   snapshot.now_s - previous->second <= settings_.window_s);
          seen_now[key] = snapshot.now_s;
        }
        if (tick.ledger.tier(static_cast<unsigned>(r.node)) == tick.fast_tier) {
          tick.fast.push_back({&w, &r, cpu});
        } else if (hot) {
          tick.hot_slow.push_back({&w, &r, cpu});
        }
      }
    }
    for (const auto& [key, t] : seen_now) last_seen_[key] = t;
    for (auto it = last_seen_.begin(); it != last_seen_.end();) {
      it = snapshot.now_s - it->second > settings_.window_s ? last_seen_.erase(it) : std::next(it);
    }
  }

  // kswapd's demotion: least recently used first. It runs when a fast node
  // is under its low watermark, or when a promotion found no room there
  // last tick (the kernel wakes kswapd from the promotion path), and then
  // frees up to the promotion watermark, above high (the kernel's
  // WMARK_PROMO), so promotions have room between the two.
  void demote_lru(Tick& tick) {
    NodeLedger& ledger = tick.ledger;
    std::stable_sort(tick.fast.begin(), tick.fast.end(), [](const Entry& a, const Entry& b) {
      return a.region->last_access_s < b.region->last_access_s;
    });
    for (unsigned node : ledger.nodes_of_tier(tick.fast_tier)) {
      const bool woken = kswapd_woken_.erase(node) > 0;
      if (!ledger.below_low(node) && !woken) continue;
      const std::uint64_t promo = ledger.high(node) + (ledger.high(node) - ledger.low(node));
      for (const Entry& e : tick.fast) {
        if (ledger.free(node) >= promo) break;
        if (static_cast<unsigned>(e.region->node) != node ||
            !tick.budget.allows(e.region->bytes())) {
          continue;
        }
        const std::optional<unsigned> to = slower_node_with_room(tick, e);
        if (!to) continue;
        tick.plan.moves.push_back(
            {e.region->pid, e.region->start, e.region->end, *to, e.workload->id,
             "demote: LRU-cold while node " + std::to_string(node) + " is short of free memory"});
        ledger.move(e.region->node, *to, e.region->bytes());
        tick.budget.spend(e.region->bytes());
      }
    }
  }

  // The nearest node of the first slower tier that has room for all of the
  // region above its high watermark.
  static std::optional<unsigned> slower_node_with_room(const Tick& tick, const Entry& e) {
    for (unsigned t = tick.fast_tier + 1; t <= tick.fast_tier + 8; ++t) {
      for (unsigned slow :
           allowed_only(nearest_of_tier(tick.snapshot, tick.ledger, e.cpu_node, t), *e.workload)) {
        if (tick.ledger.fits_above_high(slow, e.region->bytes())) return slow;
      }
    }
    return std::nullopt;
  }

  // Promotion in the order the faults come: memory touched more often
  // faults first, so the kernel's promotion stream is led by the hottest
  // pages (accesses per byte, most first; address order breaks ties),
  // while the nearest fast node stays above its high watermark.
  void promote_hot(Tick& tick) {
    NodeLedger& ledger = tick.ledger;
    auto per_block = [](const Entry& e) {
      return static_cast<double>(e.region->accesses) /
             static_cast<double>(std::max<std::uint64_t>(e.region->bytes(), 1));
    };
    std::stable_sort(tick.hot_slow.begin(), tick.hot_slow.end(),
                     [&](const Entry& a, const Entry& b) { return per_block(a) > per_block(b); });
    for (const Entry& e : tick.hot_slow) {
      if (!tick.budget.allows(e.region->bytes())) break;
      const auto fast_nodes = allowed_only(
          nearest_of_tier(tick.snapshot, ledger, e.cpu_node, tick.fast_tier), *e.workload);
      bool placed = false;
      for (unsigned node : fast_nodes) {
        // As many whole 2 MiB chunks as fit above the high watermark.
        const std::uint64_t room = ledger.room_above_high(node);
        const std::uint64_t bytes =
            room >= e.region->bytes() ? e.region->bytes() : room / kBlock * kBlock;
        if (bytes == 0) continue;
        placed = bytes == e.region->bytes();
        tick.plan.moves.push_back({e.region->pid, e.region->start, e.region->start + bytes, node,
                                   e.workload->id, "promote: two accesses within the window"});
        ledger.move(e.region->node, node, bytes);
        tick.budget.spend(bytes);
        break;
      }
      if (!placed && !fast_nodes.empty()) kswapd_woken_.insert(fast_nodes.front());
    }
  }

  TppSettings settings_;
  std::map<Key, double> last_seen_;  // last tick a region had accesses
  std::set<unsigned> kswapd_woken_;  // fast nodes a promotion found full
};

}  // namespace

PolicyInfo tpp_policy_info() {
  return {
      "tpp",
      "the kernel's TPP as a baseline: promote on a second access within a window, demote "
      "LRU-cold under pressure",
      {{"window_s", 2, 0, 3600, "two accesses within this window make a region hot"},
       {"low_free_pct", 2, 0, 50, "demote when a fast node's free memory falls below this %"},
       {"high_free_pct", 4, 0, 60, "promote only while a fast node keeps this % free"},
       {"budget_mbps", 0, 0, 100000, "migration budget per second (0 = none, as the kernel)"}},
      [](const Params& p) -> std::unique_ptr<Policy> {
        return std::make_unique<TppPolicy>(TppSettings{p.at("window_s"), p.at("low_free_pct"),
                                                       p.at("high_free_pct"), p.at("budget_mbps")});
      }};
}

}  // namespace tier::policy
