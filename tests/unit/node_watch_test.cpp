// tierd following node memory that comes and goes (placement/node_watch.hpp):
// which changes count as hotplug, and, on a copy of the 2s-cxl-hmat fixture
// whose CXL node 2 loses its memory (and comes back, or appears after the
// topology was read), what the balanced policy is then allowed to target.
#include "placement/node_watch.hpp"

#include <gtest/gtest.h>

#include <set>

#include "test_support.hpp"
#include "tier/policy/policy.hpp"

namespace tierd {
namespace {

namespace fs = std::filesystem;
using tier::test::TempDir;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kBlock = 128 * kMiB;

tier::MemorySnapshot memory(const std::map<unsigned, std::uint64_t>& totals) {
  tier::MemorySnapshot snapshot;
  for (const auto& [node, total] : totals) {
    tier::NodeMemory n;
    n.node = node;
    n.total_bytes = n.free_bytes = total;
    snapshot.nodes.push_back(n);
  }
  return snapshot;
}

TEST(NodeWatch, NamesNodesThatGainOrLoseABlockAndNothingSmaller) {
  NodeWatch watch;
  watch.reset(memory({{0, 1024 * kMiB}, {4, 256 * kMiB}}), kBlock);
  EXPECT_TRUE(watch.changes(memory({{0, 1024 * kMiB}, {4, 256 * kMiB}})).empty());
  // The kernel's own reservations move a node's total by less than a block.
  EXPECT_TRUE(watch.changes(memory({{0, 1020 * kMiB}, {4, 256 * kMiB}})).empty());
  EXPECT_EQ(watch.changes(memory({{0, 1024 * kMiB}, {4, 128 * kMiB}})),
            std::vector<std::string>{"node 4: 128 MiB (was 256 MiB)"});
  EXPECT_EQ(watch.changes(memory({{0, 1024 * kMiB}, {4, 0}})),
            std::vector<std::string>{"node 4: no memory (was 256 MiB)"});
  EXPECT_EQ(watch.changes(memory({{0, 1024 * kMiB}})),
            std::vector<std::string>{"node 4: gone (was 256 MiB)"});
  EXPECT_EQ(watch.changes(memory({{0, 1024 * kMiB}, {4, 256 * kMiB}, {5, 256 * kMiB}})),
            std::vector<std::string>{"node 5: 256 MiB (was none)"});
  // From nothing, any amount is a change; a node that stays empty is not.
  watch.reset(memory({{0, 1024 * kMiB}, {4, 0}}), kBlock);
  EXPECT_EQ(watch.changes(memory({{0, 1024 * kMiB}, {4, 64 * kMiB}})),
            std::vector<std::string>{"node 4: 64 MiB (was none)"});
  EXPECT_TRUE(watch.changes(memory({{0, 1024 * kMiB}, {4, 0}})).empty());
  // The baseline moves with reset(): the same sample is no change twice.
  watch.reset(memory({{0, 1024 * kMiB}}), kBlock);
  EXPECT_TRUE(watch.changes(memory({{0, 1024 * kMiB}})).empty());
}

TEST(NodeWatch, BlockSizeIsTheKernelsOrX86sSmallest) {
  TempDir dir("node-watch");
  const tier::SysRoot root(dir.path());
  EXPECT_EQ(memory_block_bytes(root), kBlock);  // no file
  tier::test::write_text_file(dir.path() / "sys/devices/system/memory/block_size_bytes",
                              "40000000\n");
  EXPECT_EQ(memory_block_bytes(root), std::uint64_t{1} << 30);
  tier::test::write_text_file(dir.path() / "sys/devices/system/memory/block_size_bytes", "x\n");
  EXPECT_EQ(memory_block_bytes(root), kBlock);
}

// A copy of 2s-cxl-hmat: CPU nodes 0-1 (kernel tier 4), CXL nodes 2-3
// (memory_tier22), 8 GiB each.
class CxlNodeGone : public ::testing::Test {
 protected:
  CxlNodeGone() : root_(dir_.path()) {
    tier::test::copy_tree(fs::path(TIER_FIXTURES) / "sysfs" / "2s-cxl-hmat", dir_.path());
  }

  fs::path node_dir(unsigned node) const {
    return dir_.path() / ("sys/devices/system/node/node" + std::to_string(node));
  }
  // What offlining node 2's blocks leaves: the node with no memory, out of
  // the kernel's memory tiers and of has_memory.
  void offline_node2() {
    tier::test::write_text_file(node_dir(2) / "meminfo",
                                "Node 2 MemTotal: 0 kB\nNode 2 MemFree: 0 kB\n"
                                "Node 2 MemUsed: 0 kB\n");
    node2_out_of_tiers();
  }
  void node2_out_of_tiers() {
    tier::test::write_text_file(
        dir_.path() / "sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "3\n");
    tier::test::write_text_file(dir_.path() / "sys/devices/system/node/has_memory", "0-1,3\n");
  }
  tier::Topology topology() const {
    tier::TopologyOptions options;
    options.root = root_;
    return tier::load_topology(options);
  }
  tier::MemorySnapshot sample() const { return tier::read_memory_snapshot(root_); }

  // Where balanced demotes a workload on node 0 over its fast-tier quota
  // (4 regions of 2 MiB, quota 1), given the policy's view of the nodes.
  static std::set<unsigned> demotion_targets(std::vector<tier::policy::NodeState> nodes) {
    tier::policy::Snapshot s;
    s.nodes = std::move(nodes);
    s.now_s = 100;
    tier::policy::WorkloadState w;
    w.id = "w";
    w.pids = {100};
    w.cpu_nodes = {0};
    for (std::uint64_t i = 0; i < 4; ++i) {
      tier::policy::Region r;
      r.pid = 100;
      r.start = 0x10000000 + i * 2 * kMiB;
      r.end = r.start + 2 * kMiB;
      r.node = 0;
      w.regions.push_back(r);
    }
    w.resident_bytes_by_node = {{0, 8 * kMiB}};
    w.quota_bytes = 2 * kMiB;
    s.workloads = {w};
    const tier::policy::PolicyInfo* info = tier::policy::find_policy("balanced");
    std::set<unsigned> targets;
    for (const tier::policy::Move& m :
         info->make(tier::policy::resolve_params(*info, {}))->plan(s).moves) {
      targets.insert(m.target_node);
    }
    return targets;
  }

  static std::set<unsigned> ids(const std::vector<tier::policy::NodeState>& nodes) {
    std::set<unsigned> out;
    for (const tier::policy::NodeState& n : nodes) out.insert(n.node);
    return out;
  }

  TempDir dir_{"cxl-gone"};
  tier::SysRoot root_;
};

TEST_F(CxlNodeGone, ANodeWithoutMemoryIsNoTargetAndTheReReadRanksTheRest) {
  const tier::Topology before = topology();
  NodeWatch watch;
  watch.reset(sample(), kBlock);
  EXPECT_EQ(ids(placeable_nodes(sample(), before)), (std::set<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(demotion_targets(placeable_nodes(sample(), before)), std::set<unsigned>{2});

  offline_node2();
  EXPECT_EQ(watch.changes(sample()), std::vector<std::string>{"node 2: no memory (was 8192 MiB)"});
  // Even with the ranks read before (the re-read not done yet or failed).
  EXPECT_EQ(ids(placeable_nodes(sample(), before)), (std::set<unsigned>{0, 1, 3}));
  const tier::Topology after = topology();
  const std::vector<tier::policy::NodeState> nodes = placeable_nodes(sample(), after);
  EXPECT_EQ(ids(nodes), (std::set<unsigned>{0, 1, 3}));
  EXPECT_EQ(demotion_targets(nodes), std::set<unsigned>{3});
  watch.reset(sample(), kBlock);
  EXPECT_TRUE(watch.changes(sample()).empty());

  // Back: the fixture's own files again.
  const fs::path fixture = fs::path(TIER_FIXTURES) / "sysfs" / "2s-cxl-hmat";
  for (const char* file : {"sys/devices/system/node/node2/meminfo",
                           "sys/devices/virtual/memory_tiering/memory_tier22/nodelist",
                           "sys/devices/system/node/has_memory"}) {
    tier::test::write_text_file(dir_.path() / file, tier::test::read_text_file(fixture / file));
  }
  EXPECT_EQ(watch.changes(sample()), std::vector<std::string>{"node 2: 8192 MiB (was none)"});
  const tier::Topology back = topology();
  EXPECT_EQ(ids(placeable_nodes(sample(), back)), (std::set<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(demotion_targets(placeable_nodes(sample(), back)), std::set<unsigned>{2});
}

// tierd started while node 2 was away: when it comes back, the ranks read
// at start do not know it, and an unranked node would read as tier 0 (the
// fast tier). It is no target until the topology is read again.
TEST_F(CxlNodeGone, ANodeTheTopologyDoesNotKnowWaitsForTheReRead) {
  const fs::path saved = dir_.path() / "node2.saved";
  fs::rename(node_dir(2), saved);
  node2_out_of_tiers();
  const tier::Topology started = topology();
  ASSERT_EQ(started.node(2), nullptr);
  NodeWatch watch;
  watch.reset(sample(), kBlock);

  fs::rename(saved, node_dir(2));
  tier::test::write_text_file(
      dir_.path() / "sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "2-3\n");
  EXPECT_EQ(watch.changes(sample()), std::vector<std::string>{"node 2: 8192 MiB (was none)"});
  EXPECT_EQ(ids(placeable_nodes(sample(), started)), (std::set<unsigned>{0, 1, 3}));
  EXPECT_EQ(demotion_targets(placeable_nodes(sample(), started)), std::set<unsigned>{3});
  const tier::Topology reread = topology();
  ASSERT_NE(reread.node(2), nullptr);
  ASSERT_NE(reread.node(3), nullptr);
  EXPECT_EQ(reread.node(2)->tier, reread.node(3)->tier);
  EXPECT_GT(reread.node(2)->tier, 0u);
  EXPECT_EQ(ids(placeable_nodes(sample(), reread)), (std::set<unsigned>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace tierd
