// The placement policies through the trace-driven simulator (policies/sim):
// the simulator goal, on generated traces with the real HeatMap.
// 2 GiB of 2 MiB pages, 512 MiB fast, 20 000 samples per 1 s epoch,
// first-touch fills the fast tier with whatever comes first.
#include <gtest/gtest.h>

#include "tier/policy/policy.hpp"
#include "tier/sim/generators.hpp"
#include "tier/sim/machine.hpp"
#include "tier/sim/simulator.hpp"

namespace tier::sim {
namespace {

constexpr std::uint64_t MiB = 1ULL << 20;

TraceShape shape() {
  TraceShape s;
  s.page_bytes = 2 * MiB;
  s.pages = 1024;  // 2 GiB
  s.epochs = 40;
  s.samples_per_epoch = 20000;
  s.seed = 5;
  return s;
}

SimResult run(const Trace& trace, const std::string& name) {
  const policy::PolicyInfo* info = policy::find_policy(name);
  auto policy = info->make(policy::resolve_params(*info, {}));
  return simulate(trace, two_tier(512 * MiB, 4096 * MiB), *policy);
}

// Share of the oracle after `epochs` epochs.
double relative(const SimResult& result, std::size_t epochs) {
  const EpochReport& r = result.epochs.at(epochs - 1);
  return r.fast_share / r.oracle_share;
}

TEST(PoliciesInSimulator, BalancedReachesTheOracleOnAUniformHotSet) {
  const Trace trace = uniform_trace(shape(), HotSet{128, 0.9, std::nullopt});
  const SimResult balanced = run(trace, "balanced");
  const SimResult none = run(trace, "static");
  EXPECT_LT(relative(none, 30), 0.5) << "first touch alone is far from the oracle here";
  EXPECT_GE(relative(balanced, 30), 0.95);
  EXPECT_GE(relative(balanced, 30), relative(run(trace, "tpp"), 30));
  EXPECT_EQ(balanced.summary.ping_pong_pages, 0u);
}

TEST(PoliciesInSimulator, BalancedReachesTheOracleOnZipf) {
  const Trace trace = zipf_trace(shape(), 0.99);
  const SimResult balanced = run(trace, "balanced");
  EXPECT_GE(relative(balanced, 30), 0.9);
  EXPECT_GE(relative(balanced, 30), relative(run(trace, "tpp"), 30));
  EXPECT_GE(relative(balanced, 30), relative(run(trace, "static"), 30));
}

}  // namespace
}  // namespace tier::sim
