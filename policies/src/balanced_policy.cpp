#include "balanced_policy.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "placement_common.hpp"

namespace tier::policy {

namespace {

struct Settings {
  double budget_mbps, low_free_pct, high_free_pct, min_residency_s, backoff_s, hysteresis;
  unsigned bounce_limit;
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
  int cpu_node = 0;
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
  std::snprintf(text, sizeof text, "demote: room for hotter data (%.3g/MiB over %.3g/MiB)",
                hotter, colder);
  return text;
}

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
    unsigned fast_tier = ~0U;
    for (unsigned node : ledger.nodes()) fast_tier = std::min(fast_tier, ledger.tier(node));
    Budget budget(settings_.budget_mbps, snapshot.budget_mbps, snapshot.tick_s);
    std::map<const WorkloadState*, Budget> workload_budgets;
    for (const WorkloadState& w : snapshot.workloads) {
      workload_budgets.emplace(&w, Budget(w.budget_mbps, 0, snapshot.tick_s));
    }

    // Everything with a known node, and what each workload has on the fast tier.
    std::vector<Candidate> all;
    std::map<const WorkloadState*, std::uint64_t> fast_bytes;
    for (const WorkloadState& w : snapshot.workloads) {
      const int cpu = home_cpu_node(snapshot, w);
      for (const Region& r : w.regions) {
        if (r.node < 0 || !ledger.known(static_cast<unsigned>(r.node)) || r.end <= r.start) {
          continue;
        }
        Candidate c{&w, &r, cpu, r.heat / (static_cast<double>(r.bytes()) / kMiB),
                    ledger.tier(static_cast<unsigned>(r.node)) == fast_tier};
        if (c.on_fast) fast_bytes[&w] += r.bytes();
        all.push_back(c);
      }
    }

    // The adaptive threshold: fill the fast tier's usable capacity with the
    // densest data, incumbents favoured by the hysteresis so equal heat does
    // not swap places; quotas cap each workload's share of it.
    std::uint64_t capacity = 0;
    for (unsigned node : ledger.nodes_of_tier(fast_tier)) {
      const NodeState* state = nullptr;
      for (const NodeState& n : snapshot.nodes) {
        if (n.node == node) state = &n;
      }
      if (state != nullptr && state->total_bytes > ledger.high(node)) {
        capacity += state->total_bytes - ledger.high(node);
      }
    }
    std::vector<const Candidate*> ranked;
    for (const Candidate& c : all) {
      if (c.density > 0) ranked.push_back(&c);
    }
    auto ranking = [&](const Candidate* c) {
      return c->density * (c->on_fast ? 1 + settings_.hysteresis : 1.0);
    };
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](const Candidate* a, const Candidate* b) { return ranking(a) > ranking(b); });
    std::set<const Region*> target;
    std::map<const WorkloadState*, std::uint64_t> target_bytes;
    std::uint64_t filled = 0;
    double threshold = 0;
    for (const Candidate* c : ranked) {
      const std::uint64_t bytes = c->region->bytes();
      if (filled + bytes > capacity) continue;  // a smaller, colder one may still fit
      if (c->workload->quota_bytes && target_bytes[c->workload] + bytes > *c->workload->quota_bytes) {
        continue;
      }
      target.insert(c->region);
      target_bytes[c->workload] += bytes;
      filled += bytes;
      threshold = c->density;
    }

    auto emit = [&](const Candidate& c, unsigned to, std::string reason) {
      const std::uint64_t bytes = c.region->bytes();
      plan.moves.push_back({c.region->pid, c.region->start, c.region->end, to, c.workload->id,
                            std::move(reason)});
      const bool was_fast = c.on_fast;
      const bool now_fast = ledger.tier(to) == fast_tier;
      ledger.move(c.region->node, to, bytes);
      if (was_fast && !now_fast) fast_bytes[c.workload] -= bytes;
      if (!was_fast && now_fast) fast_bytes[c.workload] += bytes;
      budget.spend(bytes);
      workload_budgets.at(c.workload).spend(bytes);
      history_.record(*c.region, snapshot.now_s);
    };
    auto movable = [&](const Candidate& c) {
      return budget.allows(c.region->bytes()) &&
             workload_budgets.at(c.workload).allows(c.region->bytes()) &&
             history_.may_move(*c.region, snapshot.now_s);
    };
    std::set<const Region*> moved;
    // Demotion target: the nearest slower node with room above its high mark.
    auto demote = [&](const Candidate& c, const std::string& reason) {
      if (moved.contains(c.region) || !movable(c)) return false;
      for (unsigned t = fast_tier + 1; t <= fast_tier + 8; ++t) {
        for (unsigned node : nearest_of_tier(snapshot, ledger, c.cpu_node, t)) {
          if (ledger.fits_above_high(node, c.region->bytes())) {
            emit(c, node, reason);
            moved.insert(c.region);
            return true;
          }
        }
      }
      return false;
    };
    // Coldest first, offline before default before online, low priority first.
    std::vector<const Candidate*> victims;
    for (const Candidate& c : all) {
      if (c.on_fast) victims.push_back(&c);
    }
    std::stable_sort(victims.begin(), victims.end(), [&](const Candidate* a, const Candidate* b) {
      const bool ta = target.contains(a->region), tb = target.contains(b->region);
      if (ta != tb) return !ta;
      const int ca = class_rank(a->workload->workload_class);
      const int cb = class_rank(b->workload->workload_class);
      if (ca != cb) return ca < cb;
      if (a->workload->priority != b->workload->priority) {
        return a->workload->priority < b->workload->priority;
      }
      return a->density < b->density;
    });

    // 1. Pressure: a fast node under its low watermark is brought back to high.
    for (unsigned node : ledger.nodes_of_tier(fast_tier)) {
      if (!ledger.below_low(node)) continue;
      for (const Candidate* v : victims) {
        if (ledger.free(node) >= ledger.high(node)) break;
        if (static_cast<unsigned>(v->region->node) != node) continue;
        demote(*v, "demote: node " + std::to_string(node) + " under its low free watermark");
      }
    }
    // 2. Quotas: a workload over its fast-tier quota gives back its coldest.
    for (const Candidate* v : victims) {
      const WorkloadState* w = v->workload;
      if (w->quota_bytes && fast_bytes[w] > *w->quota_bytes) {
        demote(*v, "demote: over the fast-tier quota");
      }
    }
    // 3. Promotion by heat × latency benefit, making room from colder data.
    std::vector<std::pair<double, const Candidate*>> promotions;
    for (const Candidate& c : all) {
      if (c.on_fast || !target.contains(c.region)) continue;
      const auto nearest = nearest_of_tier(snapshot, ledger, c.cpu_node, fast_tier);
      if (nearest.empty()) continue;
      const double benefit =
          latency_ns(snapshot, ledger, c.cpu_node, static_cast<unsigned>(c.region->node)) -
          latency_ns(snapshot, ledger, c.cpu_node, nearest.front());
      promotions.emplace_back(c.density * std::max(benefit, 1.0), &c);
    }
    std::stable_sort(promotions.begin(), promotions.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::size_t next_victim = 0;
    for (const auto& [score, c] : promotions) {
      if (!movable(*c)) continue;
      const WorkloadState* w = c->workload;
      if (w->quota_bytes && fast_bytes[w] + c->region->bytes() > *w->quota_bytes) continue;
      std::optional<unsigned> to;
      for (unsigned node : nearest_of_tier(snapshot, ledger, c->cpu_node, fast_tier)) {
        if (ledger.fits_above_high(node, c->region->bytes())) {
          to = node;
          break;
        }
      }
      // No room: demote colder non-target data (hysteresis applied by the
      // ranking above) until it fits on the nearest fast node.
      while (!to && next_victim < victims.size()) {
        const Candidate* v = victims[next_victim];
        if (target.contains(v->region)) break;  // only colder data makes room
        ++next_victim;
        if (!budget.allows(c->region->bytes() + v->region->bytes())) break;
        if (!demote(*v, room_reason(c->density, v->density))) {
          continue;
        }
        for (unsigned node : nearest_of_tier(snapshot, ledger, c->cpu_node, fast_tier)) {
          if (ledger.fits_above_high(node, c->region->bytes())) {
            to = node;
            break;
          }
        }
      }
      if (!to || !movable(*c)) continue;
      emit(*c, *to, promote_reason(c->density, threshold));
      moved.insert(c->region);
    }
    return plan;
  }

 private:
  Settings settings_;
  MoveHistory history_;
};

}  // namespace

PolicyInfo balanced_policy_info() {
  return {"balanced",
          "hottest data that fits the fast tier, ranked by heat x latency benefit; watermarks, "
          "quotas, budgets, anti-thrash",
          {{"budget_mbps", 256, 0, 100000, "migration budget per second for all workloads (0 = none)"},
           {"low_free_pct", 2, 0, 50, "demote when a fast node's free memory falls below this %"},
           {"high_free_pct", 4, 0, 60, "promote only while a fast node keeps this % free"},
           {"min_residency_s", 10, 0, 3600, "a moved region stays at least this long"},
           {"backoff_s", 120, 0, 86400, "window for bounce counting, and how long a bouncer is held"},
           {"bounce_limit", 3, 0, 100, "moves within backoff_s that make a region a bouncer"},
           {"hysteresis", 0.25, 0, 10, "heat advantage a region needs to displace a resident one"}},
          [](const Params& p) -> std::unique_ptr<Policy> {
            return std::make_unique<BalancedPolicy>(Settings{
                p.at("budget_mbps"), p.at("low_free_pct"), p.at("high_free_pct"),
                p.at("min_residency_s"), p.at("backoff_s"), p.at("hysteresis"),
                static_cast<unsigned>(p.at("bounce_limit"))});
          }};
}

}  // namespace tier::policy
