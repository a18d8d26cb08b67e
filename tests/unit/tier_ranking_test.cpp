#include "tier/topology/tier_ranking.hpp"

#include <gtest/gtest.h>

namespace tier {
namespace {

TierEvidence evidence(unsigned node, std::optional<int> kernel, std::optional<double> adist,
                      std::optional<unsigned> slit) {
  TierEvidence e;
  e.node = node;
  e.kernel_tier = kernel;
  e.abstract_distance = adist;
  e.nearest_cpu_distance = slit;
  return e;
}

TEST(TierRanking, KernelTiersWinWhenTheyDistinguishNodes) {
  auto a = rank_tiers({evidence(0, 4, 576, 10), evidence(1, 4, 576, 10), evidence(2, 35, 1620, 24),
                       evidence(3, 35, 2400, 34)},
                      {});
  EXPECT_EQ(a.overall, TierSource::kernel);
  EXPECT_EQ(a.rank, (std::map<unsigned, unsigned>{{0, 0}, {1, 0}, {2, 1}, {3, 1}}));
}

TEST(TierRanking, FallsBackToHmatWhenKernelHasOneTier) {
  auto a =
      rank_tiers({evidence(0, 4, 576, 10), evidence(2, 4, 1620, 24), evidence(3, 4, 2400, 34)}, {});
  EXPECT_EQ(a.overall, TierSource::hmat);
  EXPECT_EQ(a.rank, (std::map<unsigned, unsigned>{{0, 0}, {2, 1}, {3, 2}}));
}

TEST(TierRanking, FallsBackToSlitBands) {
  // 10 and 11/12 (NPS neighbours) are one band; 17 and 20 the next.
  auto a = rank_tiers(
      {evidence(0, std::nullopt, std::nullopt, 10), evidence(1, std::nullopt, std::nullopt, 10),
       evidence(4, std::nullopt, std::nullopt, 17), evidence(5, std::nullopt, std::nullopt, 20)},
      {});
  EXPECT_EQ(a.overall, TierSource::slit);
  EXPECT_EQ(a.rank, (std::map<unsigned, unsigned>{{0, 0}, {1, 0}, {4, 1}, {5, 1}}));
}

TEST(TierRanking, SingleTierWithoutEvidence) {
  auto a = rank_tiers({evidence(0, std::nullopt, std::nullopt, std::nullopt)}, {});
  EXPECT_EQ(a.overall, TierSource::single);
  EXPECT_EQ(a.rank.at(0), 0u);
}

TEST(TierRanking, OverrideWinsForNamedNodesOnly) {
  auto a =
      rank_tiers({evidence(0, 4, std::nullopt, 10), evidence(2, 35, std::nullopt, 24)}, {{2, 3}});
  EXPECT_EQ(a.rank.at(2), 3u);
  EXPECT_EQ(a.source.at(2), TierSource::config);
  EXPECT_EQ(a.rank.at(0), 0u);
}

TEST(TierRanking, MemorylessNodesRankWithTheFastest) {
  TierEvidence cpu_only = evidence(1, std::nullopt, std::nullopt, 10);
  cpu_only.has_memory = false;
  auto a = rank_tiers({evidence(0, 4, 576, 10), cpu_only, evidence(2, 35, 1620, 24)}, {});
  EXPECT_EQ(a.rank.at(1), 0u);
  EXPECT_EQ(a.rank.at(2), 1u);
}

Node node_with(unsigned id, bool cpus) {
  Node n;
  n.id = id;
  if (cpus) n.cpus = CpuList({id * 2, id * 2 + 1});
  return n;
}

NodePerf perf(unsigned init, unsigned target, std::uint64_t lat, std::uint64_t bw) {
  NodePerf p;
  p.initiator = init;
  p.target = target;
  p.read_latency_ns = p.write_latency_ns = lat;
  p.read_bandwidth_mbps = p.write_bandwidth_mbps = bw;
  return p;
}

TEST(TierRanking, AbstractDistanceMatchesKernelFormula) {
  // Local DRAM 80 ns / 20480 MB/s is the reference (576); a node at 250 ns /
  // 8192 MB/s is 576 × (250/80 + 20480/8192) / 2 = 1620.
  auto d = hmat_abstract_distance({node_with(0, true), node_with(2, false)},
                                  {perf(0, 0, 80, 20480), perf(0, 2, 250, 8192)});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_DOUBLE_EQ(d.at(0), 576.0);
  EXPECT_DOUBLE_EQ(d.at(2), 1620.0);
}

TEST(TierRanking, NearestCpuDistanceUsesOnlyCpuNodes) {
  auto d = nearest_cpu_distance({node_with(0, true), node_with(1, true), node_with(2, false)},
                                {{10, 21, 24}, {21, 10, 34}, {24, 34, 10}});
  EXPECT_EQ(d.at(2), 24u);
  EXPECT_EQ(d.at(1), 10u);
}

}  // namespace
}  // namespace tier

namespace tier {
namespace {

Node tiered_node(unsigned id, bool cpus, int kernel_tier) {
  Node n = node_with(id, cpus);
  n.kernel_memory_tier = kernel_tier;
  n.memory_total_bytes = 1 << 30;
  n.kind = cpus ? MemoryKind::dram : MemoryKind::cpuless;
  return n;
}

TEST(TierConsistency, FlagsMemoryOnlyNodeInDramTierThatHmatRanksSlower) {
  // Debian's 6.1 kernel: memory-only nodes land in the DRAM tier.
  auto warnings = tier_consistency_warnings({tiered_node(0, true, 4), tiered_node(2, false, 4)},
                                            {{0, 576.0}, {2, 1620.0}});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("node2 (cpuless) shares kernel tier memory_tier4 with node0"),
            std::string::npos);
}

TEST(TierConsistency, FlagsKernelDefaultGuessWithoutHmat) {
  // A CXL node without HMAT lands in the kernel's default dax tier (22).
  Node cxl = tiered_node(4, false, 22);
  cxl.kind = MemoryKind::cxl;
  auto warnings = tier_consistency_warnings(
      {tiered_node(0, true, 4), tiered_node(2, false, 35), cxl}, {{0, 576.0}, {2, 4500.0}});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("node4 (cxl) has no HMAT figures"), std::string::npos);
}

TEST(TierConsistency, FlagsReversedOrderAndStaysQuietWhenConsistent) {
  auto reversed = tier_consistency_warnings(
      {tiered_node(0, true, 4), tiered_node(2, false, 35), tiered_node(3, false, 22)},
      {{0, 576.0}, {2, 1620.0}, {3, 4000.0}});
  ASSERT_EQ(reversed.size(), 1u);
  EXPECT_EQ(reversed[0], "kernel ranks node3 above node2 but HMAT ranks it below");
  EXPECT_TRUE(tier_consistency_warnings({tiered_node(0, true, 4), tiered_node(2, false, 35)},
                                        {{0, 576.0}, {2, 1620.0}})
                  .empty());
}

}  // namespace
}  // namespace tier
