// tierd's offline suppression beside the controller: which fast node's free
// memory is watched, and how the memory signals the daemon gathers (free
// memory against the low watermark, promotion/demotion churn) reach the
// controller's decision, switched by the [suppression] settings.
#include "pools/offline_suppression.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tierd {
namespace {

constexpr std::uint64_t MiB = 1ULL << 20;

tier::Topology two_fast_one_slow() {
  tier::TopologyData data;
  for (unsigned id : {0u, 1u, 2u}) {
    tier::Node node;
    node.id = id;
    node.tier = id == 2 ? 1 : 0;
    node.memory_total_bytes = 1024 * MiB;
    data.nodes.push_back(node);
  }
  return tier::Topology(std::move(data));
}

tier::NodeMemory memory(unsigned node, std::uint64_t free_mib, std::uint64_t low_mib) {
  tier::NodeMemory m;
  m.node = node;
  m.total_bytes = 1024 * MiB;
  m.free_bytes = free_mib * MiB;
  m.low_watermark_bytes = low_mib * MiB;
  return m;
}

TEST(TightestFastNode, IsTheFastNodeClosestToItsLowWatermark) {
  const tier::Topology topology = two_fast_one_slow();
  tier::MemorySnapshot snapshot;
  // Node 2 is under its watermark but slow: not a fast-tier signal.
  snapshot.nodes = {memory(0, 500, 100), memory(1, 150, 100), memory(2, 10, 100)};
  auto tightest = tightest_fast_node(topology, snapshot);
  ASSERT_TRUE(tightest.has_value());
  EXPECT_EQ(tightest->node, 1u);
  EXPECT_EQ(tightest->free_bytes, 150 * MiB);
  EXPECT_EQ(tightest->low_watermark_bytes, 100 * MiB);

  snapshot.nodes = {memory(0, 500, 0), memory(1, 150, 0)};  // no zoneinfo: no watermark known
  EXPECT_FALSE(tightest_fast_node(topology, snapshot).has_value());
}

tier::policy::SuppressionConfig controller() {
  tier::policy::SuppressionConfig config;
  config.restore_delay_s = 1;
  return config;
}

// No online CPUs: the CPU signal stays out of these tests.
SuppressionInputs quiet_inputs(unsigned offline_pool_cpus) {
  SuppressionInputs in;
  in.offline_pool_cpus = offline_pool_cpus;
  return in;
}

TEST(OfflineSuppression, FastNodeUnderItsLowWatermarkShrinksAndDemotesOfflineFirst) {
  OfflineSuppression suppression(controller(), {0, true, 0}, tier::SysRoot("/"));
  SuppressionInputs in = quiet_inputs(4);
  in.fast_free = FastNodeFree{0, 50 * MiB, 100 * MiB};
  const tier::policy::SuppressionDecision& d = suppression.tick(10, in);
  ASSERT_EQ(d.triggers.size(), 1u);
  EXPECT_EQ(d.triggers[0], "fast node free 50 MiB < low watermark 100 MiB");
  EXPECT_EQ(d.offline_cpus, 3u);
  EXPECT_TRUE(d.demote_offline_first);
  EXPECT_DOUBLE_EQ(d.offline_budget_factor, 0.75 * 0.25);  // CPUs kept x memory factor
  EXPECT_EQ(suppression.offline_limit(), 3u);
  EXPECT_EQ(suppression.trigger_epochs().at("fast_free"), 1u);

  // Free memory back above 1.5 x the watermark: restored after the delay.
  in.fast_free = FastNodeFree{0, 160 * MiB, 100 * MiB};
  suppression.tick(11, in);
  EXPECT_EQ(suppression.tick(12.5, in).offline_cpus, 4u);
  EXPECT_FALSE(suppression.offline_limit().has_value());
  EXPECT_FALSE(suppression.decision().demote_offline_first);
}

TEST(OfflineSuppression, FreeMemoryIsIgnoredWhenItsTriggerIsOff) {
  OfflineSuppression suppression(controller(), {0, false, 0}, tier::SysRoot("/"));
  SuppressionInputs in = quiet_inputs(4);
  in.fast_free = FastNodeFree{0, 1 * MiB, 100 * MiB};
  EXPECT_TRUE(suppression.tick(10, in).triggers.empty());
  EXPECT_FALSE(suppression.suppressed());
}

TEST(OfflineSuppression, ChurnIsTheRateOfMovedBytesBetweenEpochs) {
  OfflineSuppression suppression(controller(), {0, true, 200}, tier::SysRoot("/"));
  SuppressionInputs in = quiet_inputs(2);
  in.moved_bytes_total = 5'000'000'000;  // since boot: only the growth counts
  EXPECT_TRUE(suppression.tick(10, in).triggers.empty());
  in.moved_bytes_total = 5'000'000'000 + 150'000'000;  // 150 MB in 0.5 s = 300 MB/s
  const tier::policy::SuppressionDecision& d = suppression.tick(10.5, in);
  ASSERT_EQ(d.triggers.size(), 1u);
  EXPECT_EQ(d.triggers[0], "churn 300 MB/s > 200 MB/s");
  EXPECT_EQ(suppression.trigger_epochs().at("churn"), 1u);
  EXPECT_EQ(d.offline_cpus, 1u);
  EXPECT_FALSE(
      d.demote_offline_first);  // churn cuts budgets; it does not say the fast tier is short
  EXPECT_DOUBLE_EQ(d.offline_budget_factor, 0.5 * 0.25);
  const boost::json::object json = suppression.to_json().as_object();
  EXPECT_DOUBLE_EQ(json.at("churn_mbps").as_double(), 300);
  EXPECT_EQ(json.at("demote_offline_first").as_bool(), false);

  // 100 MB/s, under half the limit: calm again.
  in.moved_bytes_total = *in.moved_bytes_total + 100'000'000;
  EXPECT_TRUE(suppression.tick(11.5, in).triggers.empty());
}

TEST(OfflineSuppression, ChurnIsIgnoredWithoutALimit) {
  OfflineSuppression suppression(controller(), {0, true, 0}, tier::SysRoot("/"));
  SuppressionInputs in = quiet_inputs(2);
  in.moved_bytes_total = 0;
  suppression.tick(10, in);
  in.moved_bytes_total = 10'000'000'000;
  EXPECT_TRUE(suppression.tick(11, in).triggers.empty());
  EXPECT_DOUBLE_EQ(suppression.to_json().as_object().at("churn_mbps").as_double(), 10000);
}

}  // namespace
}  // namespace tierd
