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

// Every fifth epoch 80 % of the accesses are a pass over all 2 GiB; between
// passes the cold data gets a little background. Once the hot set is in
// (two epochs), nothing moves: not for the passes, nor for the luckiest
// samples among equally cold data.
TEST(PoliciesInSimulator, BalancedNeitherFollowsScansNorChasesNoise) {
  const Trace trace = scan_trace(shape(), HotSet{128, 0.9, std::nullopt}, Scans{5, 0.8});
  const SimResult balanced = run(trace, "balanced");
  EXPECT_GE(relative(balanced, 30), 0.95);
  std::uint64_t after_first_two = 0;
  for (std::size_t e = 2; e < balanced.epochs.size(); ++e) {
    after_first_two += balanced.epochs[e].bytes_migrated;
  }
  EXPECT_EQ(after_first_two, 0u);
}

// The hot set (256 MiB of the 2 GiB) moves every 20 s, the issue's
// emulated-machine workload B's phase length; two phases. (On the 16 GiB
// trace of docs/benchmarks.md, 10 s phases reach 0.93x the oracle.) After
// each shift the old hot set is cooling (accesses far under what its heat
// says) and gives way within its minimum residency, and the budget saved in
// the quiet ticks pays for the exchange at once.
TEST(PoliciesInSimulator, BalancedFollowsPhaseShifts) {
  TraceShape half = shape();
  half.samples_per_epoch = 10000;  // 70 per hot page and epoch: plenty, and half the time
  const Trace trace = phase_trace(half, HotSet{128, 0.9, std::nullopt}, Phases{20, 2});
  const SimResult balanced = run(trace, "balanced");
  const SimResult tpp = run(trace, "tpp");
  const Summary& b = balanced.summary;
  EXPECT_GE(b.mean_fast_share, 0.9 * b.mean_oracle_share);
  EXPECT_GE(b.mean_fast_share, tpp.summary.mean_fast_share);
  // The shift itself is followed within a tick: the epoch after it is at
  // the oracle again (the epoch of the shift is scored against the new hot
  // set with the old placement, as for every policy).
  EXPECT_GE(relative(balanced, 22), 0.95);
  // A few pages demoted as cold before the shift are promoted as the new
  // hot set after it, within the 10-epoch ping-pong window.
  EXPECT_LE(b.ping_pong_pages * 20, b.pages_migrated);
  EXPECT_LE(b.ping_pong_pages, tpp.summary.ping_pong_pages);
}

}  // namespace
}  // namespace tier::sim
