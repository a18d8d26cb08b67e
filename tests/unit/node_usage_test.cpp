// NodeUsage: meminfo/numastat/vmstat/zoneinfo parsing against a fixture tree,
// rates between snapshots, cgroup v2 memory.numa_stat, the free-memory floor.
#include "tier/memory/node_usage.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace tier {
namespace {

const std::string kFixture = std::string(TIER_FIXTURES) + "/proc/node-usage";

TEST(NodeUsage, SnapshotFromFixture) {
  auto snapshot = read_memory_snapshot(SysRoot(kFixture));
  ASSERT_EQ(snapshot.nodes.size(), 2u);
  const NodeMemory* n0 = snapshot.node(0);
  ASSERT_NE(n0, nullptr);
  EXPECT_EQ(n0->total_bytes, 8ull << 30);
  EXPECT_EQ(n0->free_bytes, 2ull << 30);
  EXPECT_EQ(n0->used_bytes, 6ull << 30);
  EXPECT_EQ(n0->file_bytes, 1ull << 30);
  EXPECT_EQ(n0->anon_bytes, 4ull << 30);
  EXPECT_EQ(n0->huge_pages_total, 4u);
  EXPECT_EQ(n0->numastat.at("numa_hit"), 1000u);
  EXPECT_EQ(n0->vmstat.at("pgpromote_success"), 100u);
  EXPECT_EQ(n0->vmstat.count("nr_free_pages"), 0u);  // only tiering counters
  // zoneinfo: 14 + 12000 pages; the per-CPU "high:" lines do not count.
  EXPECT_EQ(n0->high_watermark_bytes, (14u + 12000u) * 4096);
  EXPECT_EQ(snapshot.node(1)->high_watermark_bytes, 6000u * 4096);
  EXPECT_EQ(n0->low_watermark_bytes, (11u + 10000u) * 4096);
  EXPECT_EQ(snapshot.node(1)->low_watermark_bytes, 5000u * 4096);
  EXPECT_EQ(snapshot.node(2), nullptr);

  EXPECT_EQ(snapshot.vmstat.at("pgdemote_kswapd"), 400u);
  EXPECT_EQ(snapshot.vmstat.at("numa_hint_faults"), 700u);
  EXPECT_EQ(snapshot.vmstat.at("pgmigrate_fail"), 3u);
  EXPECT_EQ(snapshot.vmstat.count("pgfault"), 0u);
  EXPECT_EQ(snapshot.vmstat.count("nr_anon_pages"), 0u);
}

TEST(NodeUsage, UsedFromTotalMinusFreeWithoutMemUsed) {
  auto meminfo = parse_node_meminfo("Node 3 MemTotal: 100 kB\nNode 3 MemFree: 40 kB\n");
  EXPECT_EQ(meminfo.at("MemTotal"), 102400u);
  test::TempDir dir;
  test::write_text_file(dir.path() / "sys/devices/system/node/node3/meminfo",
                        "Node 3 MemTotal: 100 kB\nNode 3 MemFree: 40 kB\n");
  auto node = read_node_memory(SysRoot(dir.path()), 3);
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->used_bytes, 60u * 1024);
  EXPECT_FALSE(read_node_memory(SysRoot(dir.path()), 4).has_value());
}

TEST(NodeUsage, RatesArePureFunctionsOfTwoSnapshots) {
  std::map<std::string, std::uint64_t> before{{"pgpromote_success", 100},
                                              {"pgdemote_kswapd", 50},
                                              {"pgmigrate_success", 10},
                                              {"numa_hint_faults", 500}};
  std::map<std::string, std::uint64_t> after{{"pgpromote_success", 300},
                                             {"pgdemote_kswapd", 150},
                                             {"pgdemote_direct", 7},
                                             {"pgmigrate_success", 5},
                                             {"numa_hint_faults", 900}};
  auto rates = counter_rates(before, after, 2.0);
  EXPECT_DOUBLE_EQ(rates.at("pgpromote_success"), 100.0);
  EXPECT_DOUBLE_EQ(rates.at("numa_hint_faults"), 200.0);
  EXPECT_DOUBLE_EQ(rates.at("pgmigrate_success"), 0.0);  // went backwards: reset
  EXPECT_EQ(rates.count("pgdemote_direct"), 0u);         // not in both
  auto tiering = tiering_rates(rates);
  EXPECT_DOUBLE_EQ(tiering.promote_pages_per_s, 100.0);
  EXPECT_DOUBLE_EQ(tiering.demote_pages_per_s, 50.0);
  EXPECT_TRUE(counter_rates(before, after, 0.0).empty());
}

TEST(NodeUsage, CgroupV2NumaStat) {
  SysRoot root(kFixture);
  auto stat = read_cgroup_numa_stat(root, "/app");
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->at("anon").at(0), 1048576u);
  EXPECT_EQ(stat->at("anon").at(1), 4096u);
  EXPECT_EQ(stat->at("file").at(0), 8192u);
  EXPECT_TRUE(read_cgroup_numa_stat(root, "/sys/fs/cgroup/unified/app").has_value());
  EXPECT_FALSE(read_cgroup_numa_stat(root, "/missing").has_value());
  test::TempDir empty;
  EXPECT_FALSE(read_cgroup_numa_stat(SysRoot(empty.path()), "/app").has_value());
}

TEST(NodeUsage, DefaultFreeFloor) {
  NodeMemory node;
  node.total_bytes = 100ull << 30;
  node.high_watermark_bytes = 1ull << 30;
  EXPECT_EQ(default_free_floor(node), 2ull << 30);  // 2% wins
  node.high_watermark_bytes = 3ull << 30;
  EXPECT_EQ(default_free_floor(node), 3ull << 30);
}

TEST(NodeUsage, LiveSnapshotHasNodeZero) {
  auto snapshot = read_memory_snapshot(SysRoot("/"));
  ASSERT_NE(snapshot.node(0), nullptr);
  EXPECT_GT(snapshot.node(0)->total_bytes, 0u);
  EXPECT_GT(snapshot.node(0)->high_watermark_bytes, 0u);
  EXPECT_GT(snapshot.node(0)->low_watermark_bytes, 0u);
  EXPECT_LT(snapshot.node(0)->low_watermark_bytes, snapshot.node(0)->high_watermark_bytes);
  EXPECT_GT(snapshot.vmstat.count("pgmigrate_success"), 0u);
}

}  // namespace
}  // namespace tier
