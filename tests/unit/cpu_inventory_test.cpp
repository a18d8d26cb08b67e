// CpuInventory from real machines (hwloc's gathered sysfs trees and XML
// exports in shared/topologies, the project's CXL fixture trees) and the
// pool spec syntax.
#include <gtest/gtest.h>

#include <set>

#include "test_support.hpp"
#include "tier/cpu/cpu_inventory.hpp"
#include "tier/cpu/pool_spec.hpp"

namespace tier::cpu {
namespace {

namespace fs = std::filesystem;

const fs::path kHwlocLinux = fs::path(TIER_SHARED_TOPOLOGIES) / "hwloc-linux";
const fs::path kSysfsFixtures = fs::path(TIER_FIXTURES) / "sysfs";

// A gathered tree unpacked into a scratch directory for the test's lifetime.
class UnpackedTree {
 public:
  explicit UnpackedTree(const std::string& name) : dir_("tier-inventory-" + name) {
    test::unpack_tarball(kHwlocLinux / (name + ".tar.bz2"), dir_.path());
    // The tarball holds one top directory, not always named like the tarball.
    std::vector<fs::path> top(fs::directory_iterator(dir_.path()), fs::directory_iterator());
    if (top.size() != 1) throw std::runtime_error(name + " should hold one top directory");
    root_ = top.front();
  }
  CpuInventory inventory() const { return load_cpu_inventory({SysRoot(root_), std::nullopt, {}}); }
  Topology topology() const { return load_topology({SysRoot(root_), std::nullopt, {}}); }

 private:
  test::TempDir dir_;
  fs::path root_;
};

std::vector<std::string> core_lists(const CpuInventory& inventory) {
  std::vector<std::string> out;
  for (const auto& core : inventory.cores()) out.push_back(core.to_string());
  return out;
}

// 4 sockets x 2 cores x 2 threads, one NUMA node; siblings are n and n+8.
TEST(CpuInventory, FourSocketsTwoCoresTwoThreads) {
  const CpuInventory inventory = UnpackedTree("16em64t-4s2c2t").inventory();
  EXPECT_EQ(inventory.all().to_string(), "0-15");
  EXPECT_EQ(inventory.smt_width(), 2u);
  EXPECT_EQ(core_lists(inventory), (std::vector<std::string>{"0,8", "4,12", "1,9", "5,13", "2,10",
                                                             "6,14", "3,11", "7,15"}));
  std::set<unsigned> packages;
  for (const auto& cpu : inventory.cpus()) packages.insert(cpu.package);
  EXPECT_EQ(packages, (std::set<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(inventory.cpu(13)->package, 1u);
  EXPECT_EQ(inventory.cpu(13)->core, 3u);
  EXPECT_EQ(inventory.nodes(), std::vector<unsigned>{0});
  EXPECT_EQ(inventory.cpus_of_node(0).to_string(), "0-15");
  EXPECT_EQ(inventory.node_of(7), 0u);
  EXPECT_EQ(inventory.cpu(16), nullptr);
  EXPECT_EQ(inventory.node_of(16), std::nullopt);
}

// The same machine exported to XML by this hwloc's lstopo (the shared
// exports are XML v3, which hwloc 2.9 cannot read) gives the same inventory.
TEST(CpuInventory, XmlExportMatchesTheTree) {
  test::TempDir dir("tier-inventory-xml");
  test::unpack_tarball(kHwlocLinux / "16em64t-4s2c2t.tar.bz2", dir.path());
  const fs::path root = dir.path() / "16em64t-4s2c2t";
  const fs::path xml = dir.path() / "machine.xml";
  {
    test::ScopedEnv fsroot("HWLOC_FSROOT", root.string());
    test::ScopedEnv components("HWLOC_COMPONENTS", "-x86");
    test::CommandResult result;
    try {
      result = test::run_command({"lstopo-no-graphics", "--of", "xml", xml.string()});
    } catch (const std::runtime_error& e) {
      GTEST_SKIP() << "lstopo-no-graphics (Debian package hwloc) is not installed: " << e.what();
    }
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  TopologyOptions options;
  options.hwloc_xml = xml.string();
  const CpuInventory from_xml = load_cpu_inventory(options);
  const CpuInventory from_tree = load_cpu_inventory({SysRoot(root), std::nullopt, {}});
  EXPECT_EQ(core_lists(from_xml), core_lists(from_tree));
  EXPECT_EQ(from_xml.all().to_string(), "0-15");
  EXPECT_EQ(from_xml.cpus_of_node(0), from_tree.cpus_of_node(0));
  EXPECT_EQ(from_xml.cpu(9)->package, from_tree.cpu(9)->package);
}

// A QEMU guest's export (hwloc-xml/cxlmem+dax.v2.xml): 4 single-thread cores, one node.
TEST(CpuInventory, QemuXmlExport) {
  TopologyOptions options;
  options.hwloc_xml =
      (fs::path(TIER_SHARED_TOPOLOGIES) / "hwloc-xml" / "cxlmem+dax.v2.xml").string();
  const CpuInventory inventory = load_cpu_inventory(options);
  EXPECT_EQ(core_lists(inventory), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(inventory.smt_width(), 1u);
  EXPECT_EQ(inventory.cpus_of_node(0).to_string(), "0-3");
}

// Offline CPUs are not in the inventory; a core with one online thread is a
// core of one.
TEST(CpuInventory, OfflineCpusAreLeftOut) {
  const CpuInventory inventory = UnpackedTree("16em64t-4s2c2t-offlines").inventory();
  EXPECT_EQ(inventory.all().to_string(), "0-1,3-4,6-12,15");
  EXPECT_EQ(core_lists(inventory),
            (std::vector<std::string>{"0,8", "4,12", "1,9", "3,11", "7,15", "6", "10"}));
  EXPECT_EQ(inventory.smt_width(), 2u);
}

// Old 8-socket AMD: 8 nodes of 2 cores, no SMT; nodes agree with the topology.
TEST(CpuInventory, EightNodeAmd) {
  UnpackedTree tree("16amd64-8n2c");
  const CpuInventory inventory = tree.inventory();
  const Topology topology = tree.topology();
  EXPECT_EQ(inventory.all().size(), 16u);
  EXPECT_EQ(inventory.cores().size(), 16u);
  EXPECT_EQ(inventory.smt_width(), 1u);
  EXPECT_EQ(inventory.nodes(), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const Node& node : topology.nodes()) {
    EXPECT_EQ(inventory.cpus_of_node(node.id), node.cpus) << "node " << node.id;
    EXPECT_EQ(inventory.cpus_of_node(node.id).size(), 2u) << "node " << node.id;
  }
}

// CPUs outside the cpuset tier may use (cgroup cpuset of the gathered
// machine) are not in the inventory.
TEST(CpuInventory, DisallowedCpusAreLeftOut) {
  const CpuInventory inventory = UnpackedTree("16amd64-8n2c-cpusets").inventory();
  EXPECT_EQ(inventory.all().to_string(), "0-3,5-6,12-15");
}

// A CXL machine: CPU-less nodes hold no CPU and are not among nodes().
TEST(CpuInventory, CpulessNodesHoldNoCpu) {
  const fs::path root = kSysfsFixtures / "2s-cxl-hmat";
  const CpuInventory inventory = load_cpu_inventory({SysRoot(root), std::nullopt, {}});
  const Topology topology = load_topology({SysRoot(root), std::nullopt, {}});
  std::vector<unsigned> cpuless;
  for (const Node& node : topology.nodes()) {
    if (node.cpus.empty()) cpuless.push_back(node.id);
    EXPECT_EQ(inventory.cpus_of_node(node.id), node.cpus) << "node " << node.id;
  }
  ASSERT_FALSE(cpuless.empty()) << "the fixture has CPU-less (CXL) nodes";
  for (unsigned node : cpuless) {
    EXPECT_EQ(std::count(inventory.nodes().begin(), inventory.nodes().end(), node), 0) << node;
  }
  EXPECT_EQ(inventory.all().to_string(), "0-7");
}

TEST(CpuInventory, ConstructedInventoryChecksItsInput) {
  EXPECT_THROW(CpuInventory({{0, 0, 0, 0}, {0, 1, 0, 0}}), std::invalid_argument);
  EXPECT_THROW(CpuInventory({{0, 0, 0, 0}, {1, 2, 0, 0}}), std::invalid_argument);
  const CpuInventory inventory({{3, 1, 0, 1}, {1, 0, 0, 0}, {2, 0, 0, 0}});
  EXPECT_EQ(core_lists(inventory), (std::vector<std::string>{"1-2", "3"}));
  EXPECT_EQ(inventory.cpus().front().id, 1u);
  EXPECT_EQ(inventory.id_limit(), 4u);
}

TEST(CpuInventory, BadXmlNamesTheFile) {
  TopologyOptions options;
  options.hwloc_xml = "/nonexistent/machine.xml";
  try {
    load_cpu_inventory(options);
    FAIL() << "loaded a missing XML";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/machine.xml"), std::string::npos)
        << e.what();
  }
}

// --- PoolSpec ---------------------------------------------------------------

TEST(PoolSpec, ParsesEveryKindAndPrintsItBack) {
  for (const char* text : {"shared", "numa:0", "numa:3", "immovable:2", "exclusive:4"}) {
    std::string error;
    auto spec = PoolSpec::parse(text, &error);
    ASSERT_TRUE(spec) << text << ": " << error;
    EXPECT_EQ(spec->to_string(), text);
  }
  EXPECT_EQ(PoolSpec::parse("exclusive:4"), (PoolSpec{PoolKind::exclusive, 4}));
  EXPECT_EQ(PoolSpec::parse("numa:1"), (PoolSpec{PoolKind::numa, 1}));
}

TEST(PoolSpec, RejectsBadSpecsWithAReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"exclusive:0", "pool \"exclusive:0\": K must be at least 1"},
      {"immovable:0", "pool \"immovable:0\": K must be at least 1"},
      {"foo", "unknown pool \"foo\" (shared, numa:N, immovable:K, exclusive:K)"},
      {"", "unknown pool \"\" (shared, numa:N, immovable:K, exclusive:K)"},
      {"Shared", "unknown pool \"Shared\" (shared, numa:N, immovable:K, exclusive:K)"},
      {"exclusive", "pool \"exclusive\": missing K (exclusive:K)"},
      {"numa", "pool \"numa\": missing N (numa:N)"},
      {"numa:x", "pool \"numa:x\": N must be a non-negative decimal number"},
      {"exclusive:-1", "pool \"exclusive:-1\": K must be a non-negative decimal number"},
      {"exclusive:2 ", "pool \"exclusive:2 \": K must be a non-negative decimal number"},
      {"immovable:99999999999",
       "pool \"immovable:99999999999\": K must be a non-negative "
       "decimal number"},
  };
  for (const auto& [text, reason] : cases) {
    std::string error;
    EXPECT_FALSE(PoolSpec::parse(text, &error)) << text;
    EXPECT_EQ(error, reason) << text;
  }
  EXPECT_FALSE(PoolSpec::parse("foo"));  // no error sink: still refused
}

}  // namespace
}  // namespace tier::cpu
