// load_topology() on our own sysfs fixture trees (tests/fixtures/sysfs, made
// by tests/fixtures/make_sysfs_fixture.py): exact nodes, kinds, memory,
// distances, HMAT figures, kernel tiers and tier ranks, plus degraded copies
// of those trees and inputs that must be rejected.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <tuple>

#include "test_support.hpp"
#include "tier/topology/topology.hpp"
#include "tier/topology/topology_json.hpp"

namespace tier {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

fs::path fixture(const std::string& name) {
  return fs::path(TIER_FIXTURES) / "sysfs" / name;
}

Topology load(const fs::path& root, std::map<unsigned, unsigned> tier_override = {}) {
  return load_topology({SysRoot(root), std::nullopt, std::move(tier_override)});
}

// A private copy of a fixture tree that a test may damage.
class TreeCopy {
 public:
  explicit TreeCopy(const std::string& name) : root_(dir_.path() / name) {
    test::copy_tree(fixture(name), root_);
  }
  const fs::path& root() const { return root_; }
  fs::path path(const std::string& kernel_path) const { return SysRoot(root_).path(kernel_path); }
  void remove(const std::string& kernel_path) const {
    ASSERT_GT(fs::remove_all(path(kernel_path)), 0u) << kernel_path << " not in the fixture";
  }
  void write(const std::string& kernel_path, const std::string& text) const {
    test::write_text_file(path(kernel_path), text + "\n");
  }

 private:
  TempDir dir_{"tier-fixture"};
  fs::path root_;
};

std::string node_dir(unsigned id) {
  return "/sys/devices/system/node/node" + std::to_string(id);
}

// --- expectations shared by the machines ------------------------------------

struct ExpectedNode {
  unsigned id;
  std::string cpus;
  std::string local_cpus;
  MemoryKind kind;
  std::uint64_t total;
  std::uint64_t free;
  unsigned tier;
  TierSource source;
  std::optional<int> kernel_tier;
};

void expect_nodes(const Topology& topology, const std::vector<ExpectedNode>& expected) {
  ASSERT_EQ(topology.nodes().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Node& node = topology.nodes()[i];
    const ExpectedNode& e = expected[i];
    SCOPED_TRACE("node " + std::to_string(e.id) + " (" + node.kind_evidence + ")");
    EXPECT_EQ(node.id, e.id);
    EXPECT_EQ(node.cpus.to_string(), e.cpus);
    EXPECT_EQ(node.local_cpus.to_string(), e.local_cpus);
    EXPECT_TRUE(node.allowed);
    EXPECT_STREQ(to_string(node.kind), to_string(e.kind));
    EXPECT_EQ(node.memory_total_bytes, e.total);
    EXPECT_EQ(node.memory_free_bytes, std::optional<std::uint64_t>(e.free));
    EXPECT_EQ(node.tier, e.tier);
    EXPECT_STREQ(to_string(node.tier_source), to_string(e.source));
    EXPECT_EQ(node.kernel_memory_tier, e.kernel_tier);
  }
}

using PerfKey = std::tuple<unsigned, unsigned, unsigned>;  // initiator, target, class
struct ExpectedPerf {
  unsigned initiator, target, access_class;
  std::uint64_t latency_ns, bandwidth_mbps;  // read and write alike in the fixtures
};

void expect_perf(const Topology& topology, const std::vector<ExpectedPerf>& expected) {
  std::map<PerfKey, const NodePerf*> got;
  for (const auto& p : topology.perf()) got[{p.initiator, p.target, p.access_class}] = &p;
  std::vector<PerfKey> expected_keys, got_keys;
  for (const auto& e : expected) expected_keys.emplace_back(e.initiator, e.target, e.access_class);
  for (const auto& [key, p] : got) got_keys.push_back(key);
  std::sort(expected_keys.begin(), expected_keys.end());
  ASSERT_EQ(got_keys, expected_keys) << "initiator/target/class pairs";
  for (const auto& e : expected) {
    const NodePerf& p = *got.at({e.initiator, e.target, e.access_class});
    SCOPED_TRACE(std::to_string(e.initiator) + "->" + std::to_string(e.target) + " access" +
                 std::to_string(e.access_class));
    EXPECT_EQ(p.read_latency_ns, e.latency_ns);
    EXPECT_EQ(p.write_latency_ns, e.latency_ns);
    EXPECT_EQ(p.read_bandwidth_mbps, e.bandwidth_mbps);
    EXPECT_EQ(p.write_bandwidth_mbps, e.bandwidth_mbps);
    EXPECT_EQ(p.source, "hmat");
  }
}

void expect_memory_tiers(const Topology& topology,
                         const std::map<int, std::vector<unsigned>>& tiers) {
  std::map<int, std::vector<unsigned>> got;
  for (const auto& t : topology.memory_tiers()) got[t.id] = t.nodes;
  EXPECT_EQ(got, tiers);
}

std::vector<unsigned> tiers_of(const Topology& topology) {
  std::vector<unsigned> tiers;
  for (const auto& node : topology.nodes()) tiers.push_back(node.tier);
  return tiers;
}

using Matrix = std::vector<std::vector<unsigned>>;

// --- 2s-cxl-hmat -------------------------------------------------------------

const Matrix k2sDistances{{10, 21, 14, 24}, {21, 10, 24, 14}, {14, 24, 10, 28}, {24, 14, 28, 10}};

TEST(Fixture2sCxlHmat, NodesKindsMemoryAndTiers) {
  const Topology topology = load(fixture("2s-cxl-hmat"));
  const auto K = TierSource::kernel;
  expect_nodes(topology, {
                             {0, "0-3", "0-3", MemoryKind::dram, 16 * kGiB, 12 * kGiB, 0, K, 4},
                             {1, "4-7", "4-7", MemoryKind::dram, 16 * kGiB, 13 * kGiB, 0, K, 4},
                             {2, "", "0-3", MemoryKind::cxl, 8 * kGiB, 7 * kGiB, 1, K, 22},
                             {3, "", "4-7", MemoryKind::cxl, 8 * kGiB, 6 * kGiB, 1, K, 22},
                         });
  EXPECT_EQ(topology.tier_source(), TierSource::kernel);
  EXPECT_EQ(topology.tier_count(), 2u);
  expect_memory_tiers(topology, {{4, {0, 1}}, {22, {2, 3}}});
  EXPECT_EQ(topology.source().kind, TopologySource::Kind::fsroot);
  EXPECT_EQ(topology.source().path, fixture("2s-cxl-hmat").string());
}

TEST(Fixture2sCxlHmat, CxlEvidenceNamesTheDaxDeviceAndRegion) {
  const Topology topology = load(fixture("2s-cxl-hmat"));
  EXPECT_NE(topology.node(2)->kind_evidence.find("dax0.0"), std::string::npos);
  EXPECT_NE(topology.node(2)->kind_evidence.find("region0"), std::string::npos);
  EXPECT_NE(topology.node(3)->kind_evidence.find("dax1.0"), std::string::npos);
  EXPECT_NE(topology.node(3)->kind_evidence.find("region1"), std::string::npos);
}

TEST(Fixture2sCxlHmat, Distances) {
  const Topology topology = load(fixture("2s-cxl-hmat"));
  EXPECT_EQ(topology.distances(), k2sDistances);
  EXPECT_EQ(topology.distance(0, 2), 14u);
  EXPECT_EQ(topology.distance(1, 2), 24u);
  EXPECT_EQ(topology.distance(2, 3), 28u);
  EXPECT_EQ(topology.distance(0, 9), std::nullopt);
}

TEST(Fixture2sCxlHmat, HmatBothAccessClasses) {
  const Topology topology = load(fixture("2s-cxl-hmat"));
  std::vector<ExpectedPerf> expected;
  for (unsigned access_class : {0u, 1u}) {
    expected.push_back({0, 0, access_class, 90, 100000});
    expected.push_back({1, 1, access_class, 90, 100000});
    expected.push_back({0, 2, access_class, 250, 30000});
    expected.push_back({1, 3, access_class, 250, 30000});
  }
  expect_perf(topology, expected);
  ASSERT_NE(topology.perf_for(0, 2), nullptr);
  EXPECT_EQ(topology.perf_for(0, 2)->access_class, 0u);  // best = lowest class
  EXPECT_EQ(topology.perf_for(1, 2), nullptr);           // only the best initiator is listed
}

// --- 1s-nps4-cxl -------------------------------------------------------------

TEST(Fixture1sNps4Cxl, SlitRanksCxlBelowAllNpsNodes) {
  const Topology topology = load(fixture("1s-nps4-cxl"));
  const auto S = TierSource::slit;
  // The kernel put everything in memory_tier4 and there is no HMAT: the SLIT
  // (11/12 between NPS nodes, 17+ to CXL) is the only evidence. hwloc hangs
  // the CPU-less node 4 off its SLIT-nearest node 0, hence local_cpus 0-3.
  expect_nodes(topology, {
                             {0, "0-3", "0-3", MemoryKind::dram, 8 * kGiB, 7 * kGiB, 0, S, 4},
                             {1, "4-7", "4-7", MemoryKind::dram, 8 * kGiB, 7 * kGiB, 0, S, 4},
                             {2, "8-11", "8-11", MemoryKind::dram, 8 * kGiB, 7 * kGiB, 0, S, 4},
                             {3, "12-15", "12-15", MemoryKind::dram, 8 * kGiB, 7 * kGiB, 0, S, 4},
                             {4, "", "0-3", MemoryKind::cxl, 32 * kGiB, 31 * kGiB, 1, S, 4},
                         });
  EXPECT_EQ(topology.tier_source(), TierSource::slit);
  expect_memory_tiers(topology, {{4, {0, 1, 2, 3, 4}}});
  EXPECT_TRUE(topology.perf().empty());
  EXPECT_EQ(topology.distances(), (Matrix{{10, 11, 12, 12, 17},
                                          {11, 10, 12, 12, 18},
                                          {12, 12, 10, 11, 19},
                                          {12, 12, 11, 10, 20},
                                          {17, 18, 19, 20, 10}}));
  EXPECT_NE(topology.node(4)->kind_evidence.find("dax0.0"), std::string::npos);
}

// --- qemu-4node --------------------------------------------------------------

std::vector<ExpectedNode> qemu_nodes(TierSource source) {
  return {
      {0, "0-1", "0-1", MemoryKind::dram, kGiB, 900 * kMiB, 0, source, 4},
      {1, "2-3", "2-3", MemoryKind::dram, kGiB, 950 * kMiB, 0, source, 4},
      {2, "", "0-1", MemoryKind::cpuless, kGiB, 1000 * kMiB, 1, source, 35},
      {3, "", "2-3", MemoryKind::cpuless, kGiB, 1010 * kMiB, 1, source, 35},
  };
}

TEST(FixtureQemu4Node, KernelTiersAndCpulessKinds) {
  const Topology topology = load(fixture("qemu-4node"));
  expect_nodes(topology, qemu_nodes(TierSource::kernel));
  expect_memory_tiers(topology, {{4, {0, 1}}, {35, {2, 3}}});
  // No dax device, no CXL link: memory-only nodes must not be guessed as CXL.
  for (unsigned id : {2u, 3u}) {
    EXPECT_EQ(topology.node(id)->kind_evidence.find("cxl"), std::string::npos);
    EXPECT_EQ(topology.node(id)->kind_evidence.find("CXL"), std::string::npos);
  }
}

TEST(FixtureQemu4Node, DistancesAndHmatAsTheGuestReports) {
  const Topology topology = load(fixture("qemu-4node"));
  EXPECT_EQ(topology.distances(),
            (Matrix{{10, 21, 24, 34}, {21, 10, 34, 24}, {24, 34, 10, 44}, {34, 24, 44, 10}}));
  expect_perf(
      topology,
      {{0, 0, 0, 80, 20480}, {1, 1, 0, 80, 20480}, {0, 2, 0, 250, 8192}, {1, 3, 0, 250, 8192}});
}

TEST(FixtureQemu4Node, WithoutKernelTiersHmatRanks) {
  TreeCopy tree("qemu-4node");
  tree.remove("/sys/devices/virtual/memory_tiering");
  const Topology topology = load(tree.root());
  auto expected = qemu_nodes(TierSource::hmat);
  for (auto& e : expected) e.kernel_tier.reset();
  expect_nodes(topology, expected);
  EXPECT_EQ(topology.tier_source(), TierSource::hmat);
  EXPECT_TRUE(topology.memory_tiers().empty());
}

TEST(FixtureQemu4Node, ConsistentFixtureHasNoWarnings) {
  EXPECT_TRUE(load(fixture("qemu-4node")).warnings().empty());
}

TEST(FixtureQemu4Node, WarnsWhenNodesDoNotAccountForAllMemory) {
  // As on a VM whose hot-plugged memory belongs to no node: 4 GiB in the
  // nodes, 24 GiB in /proc/meminfo.
  TreeCopy tree("qemu-4node");
  tree.write("/proc/meminfo", "MemTotal:       25165824 kB\nMemFree:        20000000 kB");
  const Topology topology = load(tree.root());
  ASSERT_EQ(topology.warnings().size(), 1u);
  EXPECT_EQ(topology.warnings()[0],
            "NUMA nodes account for 4096 MiB but /proc/meminfo MemTotal is 24576 MiB: per-node "
            "memory figures do not cover all memory (hot-plugged or ballooned memory in a VM?)");
}

TEST(FixtureQemu4Node, KernelTiersLikeDebian61WarnAboutDemotion) {
  TreeCopy tree("qemu-4node");
  tree.remove("/sys/devices/virtual/memory_tiering/memory_tier35");
  tree.write("/sys/devices/virtual/memory_tiering/memory_tier4/nodelist", "0-3");
  const Topology topology = load(tree.root());
  EXPECT_EQ(topology.tier_source(), TierSource::hmat);
  ASSERT_EQ(topology.warnings().size(), 2u);
  EXPECT_NE(topology.warnings()[0].find("node2 (cpuless) shares kernel tier memory_tier4"),
            std::string::npos);
}

TEST(FixtureQemu4Node, WithoutKernelTiersAndHmatSlitRanks) {
  TreeCopy tree("qemu-4node");
  tree.remove("/sys/devices/virtual/memory_tiering");
  for (unsigned id = 0; id < 4; ++id) tree.remove(node_dir(id) + "/access0");
  const Topology topology = load(tree.root());
  auto expected = qemu_nodes(TierSource::slit);
  for (auto& e : expected) e.kernel_tier.reset();
  expect_nodes(topology, expected);
  EXPECT_EQ(topology.tier_source(), TierSource::slit);
  EXPECT_TRUE(topology.perf().empty());
}

TEST(FixtureQemu4Node, ConfigOverrideWins) {
  const Topology topology = load(fixture("qemu-4node"), {{2, 0}});
  EXPECT_EQ(topology.node(2)->tier, 0u);
  EXPECT_EQ(topology.node(2)->tier_source, TierSource::config);
  // The other nodes keep the kernel's evidence.
  EXPECT_EQ(tiers_of(topology), (std::vector<unsigned>{0, 0, 0, 1}));
  EXPECT_EQ(topology.node(3)->tier_source, TierSource::kernel);
}

TEST(FixtureQemu4Node, JsonHasTheDocumentedKeys) {
  const boost::json::value json = to_json(load(fixture("qemu-4node")));
  const auto& doc = json.as_object();
  for (const char* key : {"schema", "source", "nodes", "distances", "perf", "memory_tiers",
                          "tier_source", "tier_count", "devices"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc.at("schema").as_string(), kTopologySchema);
  EXPECT_EQ(doc.at("source").at("kind").as_string(), "fsroot");
  EXPECT_EQ(doc.at("tier_source").as_string(), "kernel");
  EXPECT_EQ(doc.at("tier_count").to_number<unsigned>(), 2u);

  const auto& nodes = doc.at("nodes").as_array();
  ASSERT_EQ(nodes.size(), 4u);
  for (const char* key :
       {"id", "cpus", "cpulist", "local_cpus", "allowed", "kind", "kind_evidence", "tier",
        "tier_source", "kernel_memory_tier", "memory_total_bytes", "memory_free_bytes"}) {
    EXPECT_TRUE(nodes[0].as_object().contains(key)) << "nodes[].{" << key << "}";
  }
  EXPECT_EQ(nodes[2].at("kind").as_string(), "cpuless");
  EXPECT_EQ(nodes[0].at("cpulist").as_string(), "0-1");
  EXPECT_EQ(nodes[2].at("memory_total_bytes").to_number<std::uint64_t>(), kGiB);

  EXPECT_EQ(doc.at("distances").at("matrix").as_array().size(), 4u);
  const auto& perf = doc.at("perf").as_array();
  ASSERT_EQ(perf.size(), 4u);
  for (const char* key :
       {"initiator", "target", "access_class", "read_latency_ns", "write_latency_ns",
        "read_bandwidth_mbps", "write_bandwidth_mbps", "source"}) {
    EXPECT_TRUE(perf[0].as_object().contains(key)) << "perf[].{" << key << "}";
  }
  const auto& tiers = doc.at("memory_tiers").as_array();
  ASSERT_EQ(tiers.size(), 2u);
  EXPECT_EQ(tiers[1].at("id").to_number<int>(), 35);
}

// --- degraded trees: load, leave the missing facts unknown ---------------------

TEST(FixtureDegraded, NoHmatKeepsKindsAndKernelTiers) {
  TreeCopy tree("2s-cxl-hmat");
  for (unsigned id = 0; id < 4; ++id) {
    tree.remove(node_dir(id) + "/access0");
    tree.remove(node_dir(id) + "/access1");
  }
  const Topology topology = load(tree.root());
  EXPECT_TRUE(topology.perf().empty());
  EXPECT_EQ(topology.perf_for(0, 2), nullptr);
  EXPECT_EQ(topology.node(2)->kind, MemoryKind::cxl);
  EXPECT_EQ(tiers_of(topology), (std::vector<unsigned>{0, 0, 1, 1}));
  EXPECT_EQ(topology.tier_source(), TierSource::kernel);
}

TEST(FixtureDegraded, NoDistances) {
  TreeCopy tree("1s-nps4-cxl");
  for (unsigned id = 0; id < 5; ++id) tree.remove(node_dir(id) + "/distance");
  const Topology topology = load(tree.root());
  EXPECT_TRUE(topology.distances().empty());
  EXPECT_EQ(topology.distance(0, 4), std::nullopt);
  ASSERT_EQ(topology.nodes().size(), 5u);
  // No SLIT, no HMAT, one kernel tier: nothing tells the nodes apart.
  EXPECT_EQ(topology.tier_source(), TierSource::single);
  EXPECT_EQ(tiers_of(topology), (std::vector<unsigned>{0, 0, 0, 0, 0}));
  EXPECT_EQ(topology.node(4)->kind, MemoryKind::cxl);  // dax evidence does not need SLIT
}

TEST(FixtureDegraded, OfflineCpusAreNotNodeCpus) {
  TreeCopy tree("2s-cxl-hmat");
  // CPUs 3 and 7 offline: the kernel drops them from cpu/online and removes
  // their topology directory; nodeN/cpulist may still name them.
  tree.write("/sys/devices/system/cpu/online", "0-2,4-6");
  tree.write("/sys/devices/system/cpu/offline", "3,7");
  for (unsigned cpu : {3u, 7u}) {
    tree.write("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/online", "0");
    tree.remove("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology");
  }
  const Topology topology = load(tree.root());
  EXPECT_EQ(topology.node(0)->cpus.to_string(), "0-2");
  EXPECT_EQ(topology.node(1)->cpus.to_string(), "4-6");
  EXPECT_EQ(topology.node(2)->local_cpus.to_string(), "0-2");
  EXPECT_EQ(topology.node(0)->memory_total_bytes, 16 * kGiB);
}

TEST(FixtureDegraded, NodeWithoutMeminfo) {
  TreeCopy tree("2s-cxl-hmat");
  tree.remove(node_dir(3) + "/meminfo");
  const Topology topology = load(tree.root());
  ASSERT_EQ(topology.nodes().size(), 4u);
  const Node& node = *topology.node(3);
  EXPECT_EQ(node.memory_free_bytes, std::nullopt);
  EXPECT_EQ(node.kind, MemoryKind::cxl);
  // The kernel still lists node 3 in memory_tier22 (it only tiers nodes with
  // memory): unknown size must not promote it to the fastest tier.
  EXPECT_EQ(node.tier, 1u);
  EXPECT_EQ(topology.node(2)->memory_free_bytes, 7 * kGiB);
}

// --- input the user must fix -------------------------------------------------

TEST(TopologyInput, MissingRootNamesThePath) {
  const std::string missing = "/nonexistent/tier-root-for-test";
  try {
    load(missing);
    FAIL() << "no TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

TEST(TopologyInput, EmptyDirectoryIsNotASysfsTree) {
  TempDir empty("tier-empty");
  try {
    load(empty.path());
    FAIL() << "no TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find(empty.path().string()), std::string::npos) << e.what();
  }
}

void expect_xml_rejected(const fs::path& file) {
  TopologyOptions options;
  options.hwloc_xml = file.string();
  try {
    load_topology(options);
    FAIL() << "no TopologyError for " << file;
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(TopologyInput, MissingXml) {
  expect_xml_rejected("/nonexistent/topology.xml");
}

TEST(TopologyInput, XmlThatIsADirectory) {
  TempDir dir("tier-xmldir");
  expect_xml_rejected(dir.path());
}

TEST(TopologyInput, GarbageXml) {
  TempDir dir("tier-garbage");
  const fs::path file = dir.path() / "garbage.xml";
  test::write_text_file(file, "this is not <an lstopo export\n");
  expect_xml_rejected(file);
}

TEST(TopologyInput, TruncatedXml) {
  TempDir dir("tier-truncated");
  const fs::path file = dir.path() / "truncated.xml";
  const std::string xml =
      test::read_text_file(fs::path(TIER_SHARED_TOPOLOGIES) / "hwloc-xml" / "cxlmem+dax.v2.xml");
  test::write_text_file(file, xml.substr(0, xml.size() / 2));
  expect_xml_rejected(file);
}

}  // namespace
}  // namespace tier
