// Offline suppression controller and cpuset shrinking (suppression.hpp).
#include "tier/policy/suppression.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <tuple>

namespace tier::policy {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMB = 1e6;
constexpr unsigned kCpuWeightMax = 10000;  // cgroup v2's cpu.weight range is 1..10000

// printf into a std::string; checked by the compiler like printf itself.
__attribute__((format(printf, 1, 2))) std::string format(const char* pattern, ...) {
  char buffer[160];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  return buffer;
}

std::string number(double value) {
  return format("%g", value);
}

void require(bool ok, const char* field, double value, const char* expected) {
  if (!ok) {
    throw std::invalid_argument("suppression " + std::string(field) + " = " + number(value) + ": " +
                                expected);
  }
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// One tick's triggers and whether every signal is under its restore level.
struct Evaluation {
  std::vector<std::string> triggers;
  std::vector<std::string> trigger_kinds;  // one per trigger
  void trigger(const char* kind, std::string text) {
    trigger_kinds.emplace_back(kind);
    triggers.push_back(std::move(text));
  }
  bool fast_tier_short = false;  // share or free trigger: demote offline first
  bool memory = false;           // any memory trigger (share, free, churn): cut the budget
  bool calm = true;
};

Evaluation evaluate(const SuppressionConfig& config, const SuppressionSignals& s) {
  Evaluation e;
  if (s.online_cpu_use > config.cpu_threshold) {
    e.trigger("online_cpu", format("online CPU %.0f%% > %.0f%%", s.online_cpu_use * 100,
                                   config.cpu_threshold * 100));
  }
  e.calm = s.online_cpu_use < config.cpu_restore;

  if (s.online_fast_share) {
    if (*s.online_fast_share < s.online_fast_share_floor) {
      e.trigger("fast_share", format("online fast share %.2f < floor %.2f", *s.online_fast_share,
                                     s.online_fast_share_floor));
      e.fast_tier_short = true;
    }
    e.calm = e.calm &&
             *s.online_fast_share >= s.online_fast_share_floor + config.fast_share_restore_margin;
  }

  if (s.fast_free_bytes && s.fast_low_watermark_bytes) {
    const auto free = static_cast<double>(*s.fast_free_bytes);
    const auto low = static_cast<double>(*s.fast_low_watermark_bytes);
    if (free < low) {
      e.trigger("fast_free", format("fast node free %.0f MiB < low watermark %.0f MiB", free / kMiB,
                                    low / kMiB));
      e.fast_tier_short = true;
    }
    e.calm = e.calm && free >= low * config.free_restore_factor;
  }

  if (s.churn_limit_bytes_per_s > 0) {
    if (s.churn_bytes_per_s > s.churn_limit_bytes_per_s) {
      e.trigger("churn", format("churn %.0f MB/s > %.0f MB/s", s.churn_bytes_per_s / kMB,
                                s.churn_limit_bytes_per_s / kMB));
      e.memory = true;
    }
    e.calm =
        e.calm && s.churn_bytes_per_s <= s.churn_limit_bytes_per_s * config.churn_restore_fraction;
  }
  e.memory = e.memory || e.fast_tier_short;
  return e;
}

// cpu.max and cpu.weight follow the share of the offline pool still allowed,
// so a cgroup v2 host throttles offline work even where cpusets are shared.
void set_cgroup_limits(const SuppressionConfig& config, unsigned full, SuppressionDecision& d) {
  if (full == 0 || d.offline_cpus >= full) return;
  const unsigned period = config.cpu_max_period_us;
  const auto quota = static_cast<unsigned long long>(d.offline_cpus) * period;
  if (quota > 0) d.cpu_max = format("%llu %u", quota, period);
  const double fraction = static_cast<double>(d.offline_cpus) / full;
  const auto weight = static_cast<unsigned>(std::lround(config.cpu_weight_normal * fraction));
  d.cpu_weight = std::max(config.cpu_weight_min, weight);
}

}  // namespace

void validate(const SuppressionConfig& c) {
  require(c.cpu_threshold > 0 && c.cpu_threshold <= 1, "cpu_threshold", c.cpu_threshold,
          "expected a fraction in (0, 1]");
  require(c.cpu_restore >= 0 && c.cpu_restore <= c.cpu_threshold, "cpu_restore", c.cpu_restore,
          ("expected 0..cpu_threshold (" + number(c.cpu_threshold) + ")").c_str());
  require(c.restore_delay_s >= 0, "restore_delay_s", c.restore_delay_s, "expected >= 0");
  require(c.step_cpus > 0, "step_cpus", c.step_cpus, "expected >= 1");
  require(c.fast_share_restore_margin >= 0, "fast_share_restore_margin",
          c.fast_share_restore_margin, "expected >= 0");
  require(c.free_restore_factor >= 1, "free_restore_factor", c.free_restore_factor,
          "expected >= 1");
  require(c.churn_restore_fraction >= 0 && c.churn_restore_fraction <= 1, "churn_restore_fraction",
          c.churn_restore_fraction, "expected 0..1");
  require(c.memory_budget_factor >= 0 && c.memory_budget_factor <= 1, "memory_budget_factor",
          c.memory_budget_factor, "expected 0..1");
  require(c.cpu_max_period_us >= 1000 && c.cpu_max_period_us <= 1000000, "cpu_max_period_us",
          c.cpu_max_period_us, "expected 1000..1000000 (the kernel's cpu.max period range)");
  require(c.cpu_weight_min >= 1 && c.cpu_weight_min <= kCpuWeightMax, "cpu_weight_min",
          c.cpu_weight_min, "expected 1..10000");
  require(c.cpu_weight_normal >= c.cpu_weight_min && c.cpu_weight_normal <= kCpuWeightMax,
          "cpu_weight_normal", c.cpu_weight_normal, "expected cpu_weight_min..10000");
}

SuppressionDecision suppression_tick(const SuppressionConfig& config, unsigned offline_pool_cpus,
                                     const SuppressionSignals& signals, SuppressionState& state) {
  const unsigned full = offline_pool_cpus;
  const unsigned floor = std::min(config.min_offline_cpus, full);
  const unsigned before = full - std::min(state.taken, full - floor);
  const Evaluation e = evaluate(config, signals);

  SuppressionDecision d;
  d.offline_cpus = before;
  d.triggers = e.triggers;
  d.trigger_kinds = e.trigger_kinds;
  std::vector<std::string> changes;
  if (!e.triggers.empty()) {
    state.calm_since_s.reset();
    d.offline_cpus = before - std::min(config.step_cpus, before - floor);
    if (d.offline_cpus != before) {
      changes.push_back(format("shrink offline %u -> %u CPUs (", before, d.offline_cpus) +
                        join(e.triggers, ", ") + ")");
    }
  } else if (e.calm) {
    if (!state.calm_since_s) state.calm_since_s = signals.now_s;
    const double calm_for = signals.now_s - *state.calm_since_s;
    if (before < full && calm_for >= config.restore_delay_s) {
      d.offline_cpus = before + std::min(config.step_cpus, full - before);
      changes.push_back(format("restore offline %u -> %u CPUs (calm for %.1f s)", before,
                               d.offline_cpus, calm_for));
    }
  } else {
    // Between the restore level and the threshold: hold, and start the
    // restore delay afresh once the signals really calm down.
    state.calm_since_s.reset();
  }
  state.taken = full - d.offline_cpus;

  d.demote_offline_first = e.fast_tier_short;
  if (d.demote_offline_first != state.demoting_offline_first) {
    changes.push_back(d.demote_offline_first ? "demote offline first"
                                             : "stop demoting offline first");
    state.demoting_offline_first = d.demote_offline_first;
  }

  const double cpu_fraction = full == 0 ? 1.0 : static_cast<double>(d.offline_cpus) / full;
  d.offline_budget_factor = cpu_fraction * (e.memory ? config.memory_budget_factor : 1.0);
  d.cpu_weight = config.cpu_weight_normal;
  set_cgroup_limits(config, full, d);
  if (!changes.empty()) d.action = join(changes, "; ");
  return d;
}

CpuList shrink_cpuset(const CpuList& offline_pool, unsigned keep, const CpuList& online_cpus,
                      const cpu::CpuInventory& inventory) {
  if (keep >= offline_pool.size()) return offline_pool;

  std::vector<unsigned> online_cores, online_nodes, online_packages;
  for (unsigned id : online_cpus.ids()) {
    if (const cpu::LogicalCpu* c = inventory.cpu(id)) {
      online_cores.push_back(c->core);
      online_packages.push_back(c->package);
      if (c->node) online_nodes.push_back(*c->node);
    }
  }
  auto holds = [](const std::vector<unsigned>& v, unsigned x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // Closeness to online work: 3 = SMT sibling, 2 = same node, 1 = same
  // package, 0 = far or unknown. Kept: the least close, then the lowest ids.
  auto closeness = [&](unsigned id) {
    const cpu::LogicalCpu* c = inventory.cpu(id);
    if (c == nullptr) return 0;
    if (holds(online_cores, c->core)) return 3;
    if (c->node && holds(online_nodes, *c->node)) return 2;
    if (holds(online_packages, c->package)) return 1;
    return 0;
  };
  std::vector<unsigned> ranked = offline_pool.ids();
  std::stable_sort(ranked.begin(), ranked.end(), [&](unsigned a, unsigned b) {
    return std::make_tuple(closeness(a), a) < std::make_tuple(closeness(b), b);
  });
  ranked.resize(keep);
  return CpuList(std::move(ranked));
}

}  // namespace tier::policy
