#include "balanced_policy.hpp"

#include "balanced_tick.hpp"

namespace tier::policy {

namespace {

using balanced::Settings;

class BalancedPolicy final : public Policy {
 public:
  explicit BalancedPolicy(Settings settings) : settings_(settings) {
    carried_.history.configure(settings.min_residency_s, settings.backoff_s, settings.bounce_limit);
    // The policy's own budget is a token bucket: budget_mbps accrues every
    // tick, and what a tick leaves unused carries over up to burst_s seconds'
    // worth, so a phase change can be followed at once by a burst that the
    // quiet ticks before it paid for. The snapshot's budget caps every tick.
    if (settings.budget_mbps > 0) {
      const double rate = settings.budget_mbps * kMiB;
      carried_.bucket.emplace(rate, rate * settings.burst_s);
    }
  }

  Plan plan(const Snapshot& snapshot) override {
    Plan plan;
    carried_.history.expire(snapshot.now_s);
    NodeLedger ledger(snapshot, settings_.low_free_pct, settings_.high_free_pct);
    if (ledger.nodes().empty()) return plan;
    // Node ids are small (back() is the largest); a corrupt snapshot moves nothing.
    if (ledger.nodes().back() > 0xffff) return plan;
    std::optional<std::uint64_t> own;
    if (carried_.bucket) own = static_cast<std::uint64_t>(carried_.bucket->refill(snapshot.tick_s));
    balanced::Tick tick(settings_, carried_, snapshot, std::move(ledger),
                        Budget(own, snapshot.budget_mbps, snapshot.tick_s), plan);
    if (!tick.gather()) return plan;
    tick.choose_target_set();
    tick.relieve_pressure();
    tick.enforce_quotas();
    tick.promote();
    if (carried_.bucket) carried_.bucket->take(static_cast<double>(tick.spent()));
    return plan;
  }

 private:
  Settings settings_;
  balanced::Carried carried_;
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
        "from this heat an exchange need not wait for a second tick of fresh evidence (for a "
        "region residency_clear_ratio x the threshold, or while all data with heat fits), and "
        "the minimum residency may be lifted"}},
      [](const Params& p) -> std::unique_ptr<Policy> {
        return std::make_unique<BalancedPolicy>(Settings{
            p.at("budget_mbps"), p.at("burst_s"), p.at("low_free_pct"), p.at("high_free_pct"),
            p.at("min_residency_s"), p.at("residency_clear_ratio"), p.at("backoff_s"),
            p.at("hysteresis"), static_cast<unsigned>(p.at("bounce_limit")),
            p.at("exchange_min_heat"), p.at("confirm_heat")});
      }};
}

}  // namespace tier::policy
