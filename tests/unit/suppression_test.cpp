// The offline suppression controller (policies/src/suppression.cpp): a pool
// driven tick by tick through CPU and memory signals, and the choice of the
// CPUs the offline pool keeps.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tier/policy/suppression.hpp"

namespace tier::policy {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr double kMB = 1e6;

SuppressionSignals cpu_at(double now_s, double cpu_use) {
  SuppressionSignals s;
  s.now_s = now_s;
  s.online_cpu_use = cpu_use;
  return s;
}

// Drives one controller over ticks, as the daemon would.
class Controller {
 public:
  explicit Controller(unsigned pool_cpus, SuppressionConfig config = {})
      : pool_cpus_(pool_cpus), config_(config) {
    validate(config_);
  }
  SuppressionDecision tick(const SuppressionSignals& signals) {
    return suppression_tick(config_, pool_cpus_, signals, state_);
  }
  unsigned cpus_after(const SuppressionSignals& signals) { return tick(signals).offline_cpus; }
  void resize(unsigned pool_cpus) { pool_cpus_ = pool_cpus; }

 private:
  unsigned pool_cpus_;
  SuppressionConfig config_;
  SuppressionState state_;
};

TEST(Suppression, IdleOnlineLeavesTheWholePoolAndNoLimits) {
  Controller c(4);
  const SuppressionDecision d = c.tick(cpu_at(0, 0.10));
  EXPECT_EQ(d.offline_cpus, 4u);
  EXPECT_DOUBLE_EQ(d.offline_budget_factor, 1.0);
  EXPECT_EQ(d.cpu_max, std::nullopt);
  EXPECT_EQ(d.cpu_weight, 100u);
  EXPECT_FALSE(d.demote_offline_first);
  EXPECT_TRUE(d.triggers.empty());
  EXPECT_EQ(d.action, std::nullopt);
}

TEST(Suppression, OverThresholdShrinksOneStepPerTickDownToTheMinimum) {
  Controller c(4);
  const SuppressionDecision first = c.tick(cpu_at(0, 0.82));
  EXPECT_EQ(first.offline_cpus, 3u);
  EXPECT_EQ(first.triggers, std::vector<std::string>{"online CPU 82% > 65%"});
  EXPECT_EQ(first.trigger_kinds, std::vector<std::string>{"online_cpu"});
  EXPECT_EQ(first.action, "shrink offline 4 -> 3 CPUs (online CPU 82% > 65%)");
  EXPECT_EQ(c.cpus_after(cpu_at(1, 0.82)), 2u);
  EXPECT_EQ(c.cpus_after(cpu_at(2, 0.82)), 1u);
  const SuppressionDecision at_min = c.tick(cpu_at(3, 0.99));
  EXPECT_EQ(at_min.offline_cpus, 1u);
  EXPECT_EQ(at_min.triggers, std::vector<std::string>{"online CPU 99% > 65%"});
  EXPECT_EQ(at_min.action, std::nullopt) << "nothing changed at the minimum";
}

TEST(Suppression, ExactlyAtThresholdDoesNotTrigger) {
  Controller c(4);
  EXPECT_EQ(c.cpus_after(cpu_at(0, 0.65)), 4u);
}

TEST(Suppression, LargerStepAndMinimumAreHonoured) {
  SuppressionConfig config;
  config.step_cpus = 3;
  config.min_offline_cpus = 2;
  Controller c(8, config);
  EXPECT_EQ(c.cpus_after(cpu_at(0, 0.9)), 5u);
  EXPECT_EQ(c.cpus_after(cpu_at(1, 0.9)), 2u);
  EXPECT_EQ(c.cpus_after(cpu_at(2, 0.9)), 2u);
}

TEST(Suppression, RestoresOnlyAfterTheDelayThenOneStepPerTick) {
  Controller c(4);  // restore_delay_s = 5, cpu_restore = 0.50
  for (double t = 0; t < 3; ++t) c.tick(cpu_at(t, 0.9));
  ASSERT_EQ(c.cpus_after(cpu_at(3, 0.9)), 1u);
  // Calm from t = 4: nothing comes back before t = 9.
  for (double t = 4; t < 9; t += 0.5) {
    EXPECT_EQ(c.cpus_after(cpu_at(t, 0.10)), 1u) << "at t=" << t;
  }
  const SuppressionDecision first = c.tick(cpu_at(9, 0.10));
  EXPECT_EQ(first.offline_cpus, 2u);
  EXPECT_EQ(first.action, "restore offline 1 -> 2 CPUs (calm for 5.0 s)");
  EXPECT_EQ(c.cpus_after(cpu_at(10, 0.10)), 3u);
  EXPECT_EQ(c.cpus_after(cpu_at(11, 0.10)), 4u);
  const SuppressionDecision full = c.tick(cpu_at(12, 0.10));
  EXPECT_EQ(full.offline_cpus, 4u);
  EXPECT_EQ(full.action, std::nullopt);
}

TEST(Suppression, UseBetweenRestoreLevelAndThresholdHoldsAndRestartsTheDelay) {
  Controller c(4);
  c.tick(cpu_at(0, 0.9));
  ASSERT_EQ(c.cpus_after(cpu_at(1, 0.9)), 2u);
  for (double t = 2; t <= 5; ++t) EXPECT_EQ(c.cpus_after(cpu_at(t, 0.2)), 2u);
  EXPECT_EQ(c.cpus_after(cpu_at(6, 0.60)), 2u) << "dead band: neither shrink nor restore";
  // Calm again from t = 7: the delay counts from there, not from t = 2.
  for (double t = 7; t < 12; ++t) EXPECT_EQ(c.cpus_after(cpu_at(t, 0.2)), 2u) << "at t=" << t;
  EXPECT_EQ(c.cpus_after(cpu_at(12, 0.2)), 3u);
}

TEST(Suppression, ATriggerDuringRestoreShrinksAgainAndRestartsTheDelay) {
  Controller c(4);
  c.tick(cpu_at(0, 0.9));
  c.tick(cpu_at(1, 0.9));
  for (double t = 2; t <= 7; ++t) c.tick(cpu_at(t, 0.1));
  ASSERT_EQ(c.cpus_after(cpu_at(8, 0.1)), 4u);
  EXPECT_EQ(c.cpus_after(cpu_at(9, 0.8)), 3u);
  EXPECT_EQ(c.cpus_after(cpu_at(10, 0.1)), 3u);
  EXPECT_EQ(c.cpus_after(cpu_at(14, 0.1)), 3u);
  EXPECT_EQ(c.cpus_after(cpu_at(15, 0.1)), 4u);
}

// Input flapping around the threshold (or between the threshold and idle
// faster than the restore delay) must never give CPUs back: the offline
// cpuset only shrinks, to the minimum, and stays there.
TEST(Suppression, FlappingInputDoesNotOscillate) {
  for (const double low : {0.64, 0.55, 0.10}) {
    Controller c(6);
    unsigned previous = 6;
    unsigned changes = 0;
    for (int tick = 0; tick < 200; ++tick) {
      const double use = tick % 2 == 0 ? 0.66 : low;
      const SuppressionDecision d = c.tick(cpu_at(tick * 0.5, use));
      EXPECT_LE(d.offline_cpus, previous) << "grew back at tick " << tick << " (low " << low << ")";
      if (d.action) ++changes;
      previous = d.offline_cpus;
    }
    EXPECT_EQ(previous, 1u) << "low " << low;
    EXPECT_EQ(changes, 5u) << "exactly the five shrink steps, low " << low;
  }
}

struct MemoryCase {
  const char* name;
  SuppressionSignals signals;
  const char* trigger;
  const char* kind;
  bool demote_offline_first;
};

SuppressionSignals share(double value, double floor) {
  SuppressionSignals s = cpu_at(0, 0.1);
  s.online_fast_share = value;
  s.online_fast_share_floor = floor;
  return s;
}

SuppressionSignals free_memory(std::uint64_t free, std::uint64_t low) {
  SuppressionSignals s = cpu_at(0, 0.1);
  s.fast_free_bytes = free;
  s.fast_low_watermark_bytes = low;
  return s;
}

SuppressionSignals churn(double rate, double limit) {
  SuppressionSignals s = cpu_at(0, 0.1);
  s.churn_bytes_per_s = rate;
  s.churn_limit_bytes_per_s = limit;
  return s;
}

class MemoryTrigger : public testing::TestWithParam<MemoryCase> {};

// Each memory signal alone, with idle online CPUs, shrinks the offline
// cpuset, is named in the triggers and cuts the offline migration budget;
// fast-tier shortage (share, free) also demotes offline pages first.
TEST_P(MemoryTrigger, AloneShrinksThrottlesAndIsNamed) {
  const MemoryCase& m = GetParam();
  Controller c(4);
  const SuppressionDecision d = c.tick(m.signals);
  EXPECT_EQ(d.triggers, std::vector<std::string>{m.trigger});
  EXPECT_EQ(d.trigger_kinds, std::vector<std::string>{m.kind});
  EXPECT_EQ(d.offline_cpus, 3u);
  EXPECT_EQ(d.demote_offline_first, m.demote_offline_first);
  EXPECT_DOUBLE_EQ(d.offline_budget_factor, 0.75 * 0.25);
  EXPECT_EQ(d.cpu_max, "300000 100000");
  EXPECT_EQ(d.cpu_weight, 75u);
  const std::string expected_action = std::string("shrink offline 4 -> 3 CPUs (") + m.trigger +
                                      ")" +
                                      (m.demote_offline_first ? "; demote offline first" : "");
  EXPECT_EQ(d.action, expected_action);
}

INSTANTIATE_TEST_SUITE_P(
    Signals, MemoryTrigger,
    testing::Values(MemoryCase{"FastShare", share(0.71, 0.90),
                               "online fast share 0.71 < floor 0.90", "fast_share", true},
                    MemoryCase{"FastFree", free_memory(120 * kMiB, 256 * kMiB),
                               "fast node free 120 MiB < low watermark 256 MiB", "fast_free", true},
                    MemoryCase{"Churn", churn(300 * kMB, 100 * kMB), "churn 300 MB/s > 100 MB/s",
                               "churn", false}),
    [](const testing::TestParamInfo<MemoryCase>& param) { return param.param.name; });

TEST(Suppression, MemorySignalsAtTheirLimitsDoNotTrigger) {
  Controller c(4);
  EXPECT_TRUE(c.tick(share(0.90, 0.90)).triggers.empty());
  EXPECT_TRUE(c.tick(free_memory(256 * kMiB, 256 * kMiB)).triggers.empty());
  EXPECT_TRUE(c.tick(churn(100 * kMB, 100 * kMB)).triggers.empty());
  EXPECT_TRUE(c.tick(churn(900 * kMB, 0)).triggers.empty()) << "limit 0 = no churn trigger";
  SuppressionSignals missing = cpu_at(0, 0.1);
  missing.fast_free_bytes = 1;  // no watermark known: no comparison
  EXPECT_TRUE(c.tick(missing).triggers.empty());
}

TEST(Suppression, EveryTriggerThatHoldsIsListed) {
  Controller c(4);
  SuppressionSignals s = share(0.50, 0.90);
  s.online_cpu_use = 0.70;
  s.fast_free_bytes = 10 * kMiB;
  s.fast_low_watermark_bytes = 64 * kMiB;
  s.churn_bytes_per_s = 250 * kMB;
  s.churn_limit_bytes_per_s = 200 * kMB;
  const SuppressionDecision d = c.tick(s);
  EXPECT_EQ(d.triggers,
            (std::vector<std::string>{"online CPU 70% > 65%", "online fast share 0.50 < floor 0.90",
                                      "fast node free 10 MiB < low watermark 64 MiB",
                                      "churn 250 MB/s > 200 MB/s"}));
  EXPECT_EQ(d.action,
            "shrink offline 4 -> 3 CPUs (online CPU 70% > 65%, online fast share 0.50 < floor "
            "0.90, fast node free 10 MiB < low watermark 64 MiB, churn 250 MB/s > 200 MB/s); "
            "demote offline first");
}

TEST(Suppression, BudgetCpuMaxAndWeightFollowTheAllowedShare) {
  SuppressionConfig config;
  config.cpu_max_period_us = 50000;
  Controller c(8, config);
  struct Expected {
    unsigned cpus;
    double budget;
    const char* cpu_max;
    unsigned weight;
  };
  const Expected steps[] = {{7, 0.875, "350000 50000", 88},
                            {6, 0.75, "300000 50000", 75},
                            {5, 0.625, "250000 50000", 63},
                            {4, 0.5, "200000 50000", 50}};
  double t = 0;
  for (const Expected& e : steps) {
    const SuppressionDecision d = c.tick(cpu_at(t++, 0.9));
    EXPECT_EQ(d.offline_cpus, e.cpus);
    EXPECT_DOUBLE_EQ(d.offline_budget_factor, e.budget);
    EXPECT_EQ(d.cpu_max, e.cpu_max);
    EXPECT_EQ(d.cpu_weight, e.weight);
    EXPECT_FALSE(d.demote_offline_first) << "CPU pressure alone does not demote";
  }
}

TEST(Suppression, WeightNeverDropsBelowItsMinimum) {
  SuppressionConfig config;
  config.cpu_weight_min = 5;
  config.min_offline_cpus = 1;
  Controller c(64, config);
  SuppressionDecision d;
  for (int t = 0; t < 70; ++t) d = c.tick(cpu_at(t, 0.9));
  EXPECT_EQ(d.offline_cpus, 1u);
  EXPECT_EQ(d.cpu_weight, 5u) << "100 x 1/64 rounds to 2, below the minimum 5";
  EXPECT_EQ(d.cpu_max, "100000 100000");
}

// The memory signals have restore levels of their own: a fast share just
// over its floor is not yet calm (floor + margin), free memory must climb
// to 1.5 x the watermark, churn fall to half its limit.
TEST(Suppression, MemorySignalsNeedTheirRestoreLevelsBeforeRestoring) {
  struct Case {
    const char* name;
    SuppressionSignals trigger, uneasy, calm;
  };
  const Case cases[] = {
      {"share", share(0.5, 0.90), share(0.94, 0.90), share(0.96, 0.90)},
      {"free", free_memory(100 * kMiB, 200 * kMiB), free_memory(299 * kMiB, 200 * kMiB),
       free_memory(300 * kMiB, 200 * kMiB)},
      {"churn", churn(300 * kMB, 100 * kMB), churn(51 * kMB, 100 * kMB),
       churn(50 * kMB, 100 * kMB)},
  };
  for (const Case& k : cases) {
    Controller c(2);
    ASSERT_EQ(c.cpus_after(k.trigger), 1u) << k.name;
    SuppressionSignals s = k.uneasy;
    for (double t = 1; t < 30; ++t) {
      s.now_s = t;
      EXPECT_EQ(c.cpus_after(s), 1u) << k.name << " at t=" << t;
    }
    s = k.calm;
    s.now_s = 30;
    EXPECT_EQ(c.cpus_after(s), 1u) << k.name;
    s.now_s = 35;
    EXPECT_EQ(c.cpus_after(s), 2u) << k.name;
  }
}

TEST(Suppression, DemoteFirstIsLoggedWhenItStartsAndStops) {
  Controller c(2);
  SuppressionSignals s = share(0.5, 0.9);
  EXPECT_EQ(c.tick(s).action,
            "shrink offline 2 -> 1 CPUs (online fast share 0.50 < floor 0.90); "
            "demote offline first");
  s.now_s = 1;
  const SuppressionDecision held = c.tick(s);
  EXPECT_TRUE(held.demote_offline_first);
  EXPECT_EQ(held.action, std::nullopt);
  s = share(0.92, 0.9);
  s.now_s = 2;
  const SuppressionDecision eased = c.tick(s);
  EXPECT_FALSE(eased.demote_offline_first);
  EXPECT_EQ(eased.action, "stop demoting offline first");
  EXPECT_DOUBLE_EQ(eased.offline_budget_factor, 0.5) << "no memory trigger: only the CPU share";
}

TEST(Suppression, PoolSmallerThanMinimumOrResizedIsClamped) {
  SuppressionConfig config;
  config.min_offline_cpus = 2;
  Controller tiny(1, config);
  EXPECT_EQ(tiny.cpus_after(cpu_at(0, 0.9)), 1u);

  Controller c(6);
  c.tick(cpu_at(0, 0.9));
  ASSERT_EQ(c.cpus_after(cpu_at(1, 0.9)), 4u);
  // A live pool change took CPUs from the offline pool: the 2 CPUs already
  // taken stay taken (3 - 2 = 1, the minimum), not an absolute 4 clamped.
  c.resize(3);
  EXPECT_EQ(c.cpus_after(cpu_at(2, 0.9)), 1u);
  c.resize(0);
  const SuppressionDecision empty = c.tick(cpu_at(3, 0.9));
  EXPECT_EQ(empty.offline_cpus, 0u);
  EXPECT_EQ(empty.cpu_max, std::nullopt);
}

// Found in the guest: tierd ticks before any offline workload exists (pool
// 0); the first one to join must get the whole pool, not look suppressed.
TEST(Suppression, AnOfflinePoolThatWasEmptyIsNotSuppressedWhenItFills) {
  Controller c(0);
  EXPECT_EQ(c.cpus_after(cpu_at(0, 0.1)), 0u);
  c.resize(4);
  const SuppressionDecision d = c.tick(cpu_at(1, 0.1));
  EXPECT_EQ(d.offline_cpus, 4u);
  EXPECT_EQ(d.action, std::nullopt);
}

TEST(Suppression, ValidateNamesTheBadFieldAndValue) {
  auto message = [](auto mutate) {
    SuppressionConfig config;
    mutate(config);
    try {
      validate(config);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message([](SuppressionConfig&) {}), "accepted");
  EXPECT_EQ(message([](SuppressionConfig& c) { c.cpu_threshold = 1.5; }),
            "suppression cpu_threshold = 1.5: expected a fraction in (0, 1]");
  EXPECT_EQ(message([](SuppressionConfig& c) { c.cpu_restore = 0.7; }),
            "suppression cpu_restore = 0.7: expected 0..cpu_threshold (0.65)");
  EXPECT_EQ(message([](SuppressionConfig& c) { c.step_cpus = 0; }),
            "suppression step_cpus = 0: expected >= 1");
  EXPECT_EQ(message([](SuppressionConfig& c) { c.restore_delay_s = -1; }),
            "suppression restore_delay_s = -1: expected >= 0");
  EXPECT_EQ(message([](SuppressionConfig& c) { c.cpu_weight_normal = 20000; }),
            "suppression cpu_weight_normal = 20000: expected cpu_weight_min..10000");
  EXPECT_EQ(message([](SuppressionConfig& c) { c.memory_budget_factor = 2; }),
            "suppression memory_budget_factor = 2: expected 0..1");
}

// Two packages; package 0 holds nodes 0 and 1, package 1 node 2. Cores of
// two SMT threads: core k = CPUs {2k, 2k+1}.
//   node 0: cores 0,1 (CPUs 0-3)   node 1: core 2 (CPUs 4-5)   node 2: cores 3,4 (CPUs 6-9)
cpu::CpuInventory two_package_inventory() {
  std::vector<cpu::LogicalCpu> cpus;
  const unsigned node_of_core[] = {0, 0, 1, 2, 2};
  for (unsigned core = 0; core < 5; ++core) {
    for (unsigned thread = 0; thread < 2; ++thread) {
      const unsigned node = node_of_core[core];
      cpus.push_back({2 * core + thread, core, node == 2 ? 1u : 0u, node});
    }
  }
  return cpu::CpuInventory(cpus);
}

CpuList list(const char* text) {
  return *CpuList::parse(text);
}

TEST(ShrinkCpuset, GivesUpSiblingsThenSameNodeThenSamePackageAndKeepsTheFarOnes) {
  const cpu::CpuInventory inventory = two_package_inventory();
  const CpuList online = list("0");
  const CpuList pool = list("1-9");
  EXPECT_EQ(shrink_cpuset(pool, 9, online, inventory).to_string(), "1-9");
  EXPECT_EQ(shrink_cpuset(pool, 8, online, inventory).to_string(), "2-9") << "sibling 1 first";
  EXPECT_EQ(shrink_cpuset(pool, 7, online, inventory).to_string(), "2,4-9")
      << "then node 0, highest id first";
  EXPECT_EQ(shrink_cpuset(pool, 6, online, inventory).to_string(), "4-9");
  EXPECT_EQ(shrink_cpuset(pool, 5, online, inventory).to_string(), "4,6-9")
      << "then package 0's other node";
  EXPECT_EQ(shrink_cpuset(pool, 4, online, inventory).to_string(), "6-9");
  EXPECT_EQ(shrink_cpuset(pool, 2, online, inventory).to_string(), "6-7")
      << "among far CPUs the lowest ids stay";
  EXPECT_EQ(shrink_cpuset(pool, 0, online, inventory).to_string(), "");
}

TEST(ShrinkCpuset, OnlineOnTheFarPackageTurnsTheOrderAround) {
  const cpu::CpuInventory inventory = two_package_inventory();
  EXPECT_EQ(shrink_cpuset(list("0-5,7"), 3, list("6"), inventory).to_string(), "0-2")
      << "7 is 6's sibling; 0-5 are on the other package; highest ids go first";
  EXPECT_EQ(shrink_cpuset(list("0-5,7"), 5, list("6,8"), inventory).to_string(), "0-4");
}

TEST(ShrinkCpuset, CpusUnknownToTheInventoryCountAsFar) {
  const cpu::CpuInventory inventory = two_package_inventory();
  EXPECT_EQ(shrink_cpuset(list("6,42"), 1, list("7"), inventory).to_string(), "42");
}

}  // namespace
}  // namespace tier::policy
