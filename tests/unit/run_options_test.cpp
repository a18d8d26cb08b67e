// `tierctl run` plans: flags → RunPlan on fixture machines (run_options.hpp),
// --near on gathered topologies with NICs/GPUs, --preload's search, and the
// live libnuma parsers' error texts.
#include <gtest/gtest.h>
#include <numa.h>

#include <filesystem>
#include <map>

#include "run_exec.hpp"
#include "run_options.hpp"
#include "test_support.hpp"

namespace tierctl::run {
namespace {

namespace fs = std::filesystem;
using tier::CpuList;

CpuList list(const char* text) {
  return *CpuList::parse(text);
}

/// A machine from a topology: node/CPU lists in kernel syntax plus "all",
/// ids checked against what the topology has (numactl's "out of range").
Machine machine_of(const tier::Topology& topology) {
  std::vector<unsigned> nodes, cpus;
  for (const tier::Node& node : topology.nodes()) {
    nodes.push_back(node.id);
    cpus.insert(cpus.end(), node.cpus.ids().begin(), node.cpus.ids().end());
  }
  auto parser = [](CpuList all, const char* what) {
    return [all, what](const std::string& text) -> Machine::Parsed {
      if (text == "all") return {all, ""};
      const std::optional<CpuList> ids = CpuList::parse(text);
      if (!ids) return {std::nullopt, std::string("unparseable ") + what + " '" + text + "'"};
      for (unsigned id : ids->ids()) {
        if (!all.contains(id)) {
          return {std::nullopt,
                  std::string(what) + " argument " + std::to_string(id) + " is out of range"};
        }
      }
      return {ids, ""};
    };
  };
  Machine machine;
  machine.parse_nodes = parser(CpuList(nodes), "node");
  machine.parse_cpus = parser(CpuList(cpus), "cpu");
  machine.node_cpus = [topology](unsigned id) {
    const tier::Node* node = topology.node(id);
    return node != nullptr ? node->cpus : CpuList();
  };
  return machine;
}

/// Two sockets (CPUs 0-3, 4-7) and a CPU-less CXL node 2 near socket 0, with
/// a GPU on node 1 and a NIC on the CPU-less node.
tier::Topology two_sockets_and_cxl() {
  tier::TopologyData data;
  tier::Node n0, n1, n2;
  n0.id = 0, n0.cpus = n0.local_cpus = list("0-3"), n0.kind = tier::MemoryKind::dram;
  n1.id = 1, n1.cpus = n1.local_cpus = list("4-7"), n1.kind = tier::MemoryKind::dram;
  n2.id = 2, n2.local_cpus = list("0-3"), n2.kind = tier::MemoryKind::cxl;
  data.nodes = {n0, n1, n2};
  tier::Device gpu{"card0", tier::DeviceType::gpu, "0000:3b:00.0", 1, {}};
  tier::Device nic{"eth0", tier::DeviceType::nic, "0000:5e:00.0", 2, {}};
  tier::Device lost{"nvme0n1", tier::DeviceType::nvme, "0000:01:00.0", std::nullopt, {}};
  data.devices = {gpu, nic, lost};
  return tier::Topology(data);
}

RunRequest request(std::vector<BindFlag> binds, std::vector<std::string> command = {"true"}) {
  RunRequest r;
  r.binds = std::move(binds);
  r.command = std::move(command);
  return r;
}

BindFlag physcpubind(std::string v) {
  return {BindFlag::Kind::physcpubind, MemPolicy::none, "--physcpubind", std::move(v)};
}
BindFlag cpunodebind(std::string v) {
  return {BindFlag::Kind::cpunodebind, MemPolicy::none, "--cpunodebind", std::move(v)};
}
BindFlag memory(MemPolicy policy, std::string flag, std::string v = "") {
  return {BindFlag::Kind::memory, policy, std::move(flag), std::move(v)};
}

class RunPlanTest : public ::testing::Test {
 protected:
  RunPlan plan(const RunRequest& r) {
    return make_plan(r, machine_, [this] { return topology_; });
  }
  std::string error(const RunRequest& r) {
    try {
      plan(r);
    } catch (const RunUsageError& e) {
      return e.what();
    }
    return "(no error)";
  }
  tier::Topology topology_ = two_sockets_and_cxl();
  Machine machine_ = machine_of(topology_);
};

TEST_F(RunPlanTest, PhyscpubindAndMembindGiveThoseCpusAndABindPolicy) {
  const RunPlan p = plan(request({physcpubind("1"), memory(MemPolicy::bind, "--membind", "0")}));
  EXPECT_EQ(p.binding.cpus, list("1"));
  EXPECT_EQ(p.binding.policy, MemPolicy::bind);
  EXPECT_EQ(p.binding.nodes, list("0"));
  EXPECT_TRUE(p.needs_daemon.empty());
  EXPECT_EQ(p.command, std::vector<std::string>{"true"});
}

TEST_F(RunPlanTest, CpunodebindUsesTheNodesCpus) {
  const RunPlan p = plan(request({cpunodebind("0,1")}));
  EXPECT_EQ(p.binding.cpus, list("0-7"));
  EXPECT_EQ(p.binding.policy, MemPolicy::none);
}

TEST_F(RunPlanTest, TheLastCpuBindingWinsAsInNumactl) {
  EXPECT_EQ(plan(request({cpunodebind("1"), physcpubind("2")})).binding.cpus, list("2"));
  EXPECT_EQ(plan(request({physcpubind("2"), cpunodebind("1")})).binding.cpus, list("4-7"));
}

TEST_F(RunPlanTest, AnySecondMemoryPolicyConflicts) {
  EXPECT_EQ(error(request({memory(MemPolicy::bind, "--membind", "0"),
                           memory(MemPolicy::interleave, "--interleave", "0")})),
            "conflicting memory policies: --membind 0 and --interleave 0 (give one of --membind, "
            "--preferred, --preferred-many, --interleave, --weighted-interleave, --localalloc)");
  EXPECT_NE(error(request({memory(MemPolicy::bind, "--membind", "0"),
                           memory(MemPolicy::bind, "--membind", "0")}))
                .find("conflicting memory policies: --membind 0 and --membind 0"),
            std::string::npos);
  EXPECT_NE(error(request({memory(MemPolicy::local, "--localalloc"),
                           memory(MemPolicy::preferred, "--preferred", "1")}))
                .find("--localalloc and --preferred 1"),
            std::string::npos);
}

TEST_F(RunPlanTest, EachPolicyKeepsItsNodes) {
  for (auto [policy, flag] : std::vector<std::pair<MemPolicy, std::string>>{
           {MemPolicy::interleave, "--interleave"},
           {MemPolicy::preferred_many, "--preferred-many"},
           {MemPolicy::weighted_interleave, "--weighted-interleave"}}) {
    const RunPlan p = plan(request({memory(policy, flag, "1-2")}));
    EXPECT_EQ(p.binding.policy, policy) << flag;
    EXPECT_EQ(p.binding.nodes, list("1-2")) << flag;
    EXPECT_FALSE(p.binding.cpus) << flag;
  }
  const RunPlan local = plan(request({memory(MemPolicy::local, "--localalloc")}));
  EXPECT_EQ(local.binding.policy, MemPolicy::local);
  EXPECT_TRUE(local.binding.nodes.empty());
}

TEST_F(RunPlanTest, BadNodesAndCpusNameTheFlagAndTheValue) {
  EXPECT_EQ(error(request({memory(MemPolicy::bind, "--membind", "5")})),
            "--membind '5': node argument 5 is out of range");
  EXPECT_EQ(error(request({physcpubind("9")})),
            "--physcpubind '9': cpu argument 9 is out of range");
  EXPECT_EQ(error(request({physcpubind("x")})), "--physcpubind 'x': unparseable cpu 'x'");
  EXPECT_EQ(error(request({memory(MemPolicy::bind, "--membind", "")})),
            "--membind '' selects no node");
}

TEST_F(RunPlanTest, CpunodebindOnACpuLessNodeIsRejected) {
  EXPECT_NE(error(request({cpunodebind("0,2")})).find("--cpunodebind 0,2: node 2 has no CPUs"),
            std::string::npos);
}

TEST_F(RunPlanTest, PreferredTakesExactlyOneNode) {
  EXPECT_EQ(error(request({memory(MemPolicy::preferred, "--preferred", "0-1")})),
            "--preferred '0-1' names 2 nodes; --preferred takes one (use --preferred-many for "
            "several)");
  EXPECT_EQ(plan(request({memory(MemPolicy::preferred, "--preferred", "1")})).binding.nodes,
            list("1"));
}

TEST_F(RunPlanTest, MissingCommandIsAUsageError) {
  EXPECT_NE(error(request({}, {})).find("missing CMD"), std::string::npos);
}

TEST_F(RunPlanTest, ClassQuotaAndReservedPoolsNeedTierd) {
  RunRequest r = request({});
  r.klass = "online";
  r.quota = "8G";
  r.pool = "exclusive:2";
  const RunPlan p = plan(r);
  EXPECT_EQ(p.needs_daemon,
            (std::vector<std::string>{"--class online", "--pool exclusive:2", "--quota 8G"}));
  r = request({});
  r.pool = "immovable:1";
  EXPECT_EQ(plan(r).needs_daemon, std::vector<std::string>{"--pool immovable:1"});
  r.pool = "shared";
  EXPECT_TRUE(plan(r).needs_daemon.empty());
  EXPECT_FALSE(plan(r).pool_binding);
}

TEST_F(RunPlanTest, NumaPoolBindsCpusToTheNodeAndPrefersItsMemory) {
  RunRequest r = request({});
  r.pool = "numa:1";
  const RunPlan p = plan(r);
  EXPECT_TRUE(p.needs_daemon.empty());
  ASSERT_TRUE(p.pool_binding);
  EXPECT_EQ(p.pool_binding->cpus, list("4-7"));
  EXPECT_EQ(p.pool_binding->policy, MemPolicy::preferred);
  EXPECT_EQ(p.pool_binding->nodes, list("1"));
  EXPECT_EQ(p.binding, Binding{});  // tierd, when running, places the pool itself

  r.pool = "numa:2";
  EXPECT_NE(error(r).find("node 2 has no CPUs"), std::string::npos);
  r.pool = "numa:1";
  r.binds = {memory(MemPolicy::bind, "--membind", "0")};
  EXPECT_EQ(error(r),
            "--pool numa:1 conflicts with --membind 0: a numa pool binds CPUs and memory itself");
}

TEST_F(RunPlanTest, MalformedPoolsAndClassesAreRejected) {
  RunRequest r = request({});
  for (const char* bad : {"numa:", "numa:x", "exclusive:0", "exclusive", "private"}) {
    r.pool = bad;
    EXPECT_NE(error(r).find(std::string("--pool '") + bad + "'"), std::string::npos) << bad;
  }
  r.pool.reset();
  r.klass = "batch";
  EXPECT_EQ(error(r), "--class 'batch': expected online or offline");
}

TEST_F(RunPlanTest, NearBindsToTheDevicesNode) {
  RunRequest r = request({});
  r.near = "card0";
  const RunPlan p = plan(r);
  EXPECT_EQ(p.binding.cpus, list("4-7"));
  EXPECT_EQ(p.binding.policy, MemPolicy::bind);
  EXPECT_EQ(p.binding.nodes, list("1"));
}

TEST_F(RunPlanTest, NearOnACpuLessNodeUsesItsLocalCpus) {
  const Binding b = resolve_near(topology_, "eth0");
  EXPECT_EQ(b.cpus, list("0-3"));
  EXPECT_EQ(b.nodes, list("2"));
}

TEST_F(RunPlanTest, NearTakesFullAndShortPciAddresses) {
  EXPECT_EQ(resolve_near(topology_, "0000:3b:00.0").nodes, list("1"));
  EXPECT_EQ(resolve_near(topology_, "3b:00.0").nodes, list("1"));
}

TEST_F(RunPlanTest, NearRejectsUnknownDevicesAndDevicesWithoutANode) {
  RunRequest r = request({});
  r.near = "mlx5_0";
  EXPECT_EQ(error(r),
            "--near 'mlx5_0': no such device (known: card0 (0000:3b:00.0), eth0 (0000:5e:00.0), "
            "nvme0n1 (0000:01:00.0))");
  r.near = "nvme0n1";
  EXPECT_NE(error(r).find("device nvme0n1 has no NUMA node"), std::string::npos);
}

TEST_F(RunPlanTest, NearConflictsWithExplicitBinding) {
  for (const BindFlag& flag :
       {physcpubind("1"), cpunodebind("0"), memory(MemPolicy::bind, "--membind", "0"),
        memory(MemPolicy::interleave, "--interleave", "0")}) {
    RunRequest r = request({flag});
    r.near = "card0";
    EXPECT_NE(error(r).find("--near card0 conflicts with " + flag.flag), std::string::npos)
        << flag.flag;
  }
}

TEST_F(RunPlanTest, NearChecksTheNodeAgainstTheMachineItRunsOn) {
  // The topology (e.g. from --root) has node 1; the machine here does not.
  tier::TopologyData one_node;
  tier::Node n0;
  n0.id = 0, n0.cpus = n0.local_cpus = list("0-3");
  one_node.nodes = {n0};
  machine_ = machine_of(tier::Topology(one_node));
  RunRequest r = request({});
  r.near = "card0";
  EXPECT_EQ(error(r), "--near card0 (CPUs) '4-7': cpu argument 4 is out of range");
}

// hwloc's gathered machines: NICs, NVMe, a GPU and an InfiniBand HCA on two
// nodes, and one whose only device has no NUMA node.
class SharedTopologyNear : public ::testing::Test {
 protected:
  static tier::Topology load(const char* name, tier::test::TempDir& dir) {
    const fs::path tarball =
        fs::path(TIER_SHARED_TOPOLOGIES) / "hwloc-linux" / (std::string(name) + ".tar.bz2");
    if (!fs::exists(tarball)) return {};
    tier::test::unpack_tarball(tarball, dir.path());
    const fs::path root = fs::directory_iterator(dir.path())->path();
    tier::TopologyOptions options;
    options.root = tier::SysRoot(root);
    return tier::load_topology(options);
  }
};

TEST_F(SharedTopologyNear, DevicesOnTwoNodesBindToTheirNode) {
  tier::test::TempDir dir("run-near");
  const tier::Topology t = load("32em64t-2n8c+dax+nvme+mic+dimms", dir);
  if (t.nodes().empty()) GTEST_SKIP() << "shared topologies not found at " TIER_SHARED_TOPOLOGIES;
  const Binding eth0 = resolve_near(t, "eth0");
  EXPECT_EQ(eth0.cpus, list("0-7"));
  EXPECT_EQ(eth0.nodes, list("0"));
  // The HCA is named "ib0,mlx4_0": either alias finds it.
  EXPECT_EQ(resolve_near(t, "mlx4_0").cpus, list("8-15"));
  EXPECT_EQ(resolve_near(t, "ib0").nodes, list("1"));
  EXPECT_EQ(resolve_near(t, "0000:83:00.0").nodes, list("1"));
  EXPECT_EQ(resolve_near(t, "05:00.0").nodes, list("0"));  // the GPU, unnamed
  EXPECT_THROW(resolve_near(t, "eth9"), RunUsageError);
}

TEST_F(SharedTopologyNear, ADeviceWithoutANodeIsAUsageError) {
  tier::test::TempDir dir("run-near");
  const tier::Topology t = load("40intel64-4n10c+pci-conflicts", dir);
  if (t.nodes().empty()) GTEST_SKIP() << "shared topologies not found at " TIER_SHARED_TOPOLOGIES;
  try {
    resolve_near(t, "sda");
    FAIL() << "sda has no NUMA node in this machine";
  } catch (const RunUsageError& e) {
    EXPECT_NE(std::string(e.what()).find("device sda has no NUMA node"), std::string::npos)
        << e.what();
  }
}

TEST(RunPreload, FoundNextToTheBinaryAndPrependedToLdPreload) {
  tier::test::TempDir prefix("run-preload");
  fs::create_directories(prefix.path() / "bin");
  fs::create_directories(prefix.path() / "lib64");
  tier::test::write_text_file(prefix.path() / "lib64" / "libtierpreload.so", "");
  const auto dirs = preload_search_dirs(prefix.path() / "bin");
  const auto env = preload_environment(dirs, "weighted:0=3,2=1", "/lib/other.so");
  const std::string library = (prefix.path() / "lib64" / "libtierpreload.so").string();
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0], std::make_pair(std::string("LD_PRELOAD"), library + " /lib/other.so"));
  EXPECT_EQ(env[1],
            std::make_pair(std::string("TIER_PRELOAD_POLICY"), std::string("weighted:0=3,2=1")));
  EXPECT_EQ(preload_environment(dirs, "slow", nullptr)[0].second, library);
}

// What the library would refuse (and run on plain glibc with a warning) the
// launcher refuses before starting anything, in the library's own words.
TEST(RunPreload, APolicyTheLibraryWouldRefuseIsAUsageError) {
  for (const char* bad : {"hot", "nodes:", "weighted:0=0", "ratio:1"}) {
    try {
      preload_environment({}, bad, nullptr);
      FAIL() << bad << " accepted";
    } catch (const RunUsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(std::string("--preload ") + bad + ": expected", 0), 0u)
          << e.what();
    }
  }
}

TEST(RunPreload, MissingLibraryNamesEveryPlaceLookedIn) {
  tier::test::TempDir prefix("run-preload");
  fs::create_directories(prefix.path() / "bin");
  fs::create_directories(prefix.path() / "lib");
  fs::create_directories(prefix.path() / "lib64");
  try {
    preload_environment(preload_search_dirs(prefix.path() / "bin"), "slow", nullptr);
    FAIL() << "no library installed";
  } catch (const RunUsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--preload slow: libtierpreload.so not found (looked in: " +
                                         (prefix.path() / "lib").string() + ", " +
                                         (prefix.path() / "lib64").string() + ")");
  }
}

// libnuma's parsers on this machine (numactl's semantics and messages).
TEST(LiveMachine, NodesBeyondTheLastAreOutOfRange) {
  const Machine machine = live_machine();
  const int beyond = numa_max_node() + 1;
  const Machine::Parsed parsed = machine.parse_nodes(std::to_string(beyond));
  EXPECT_FALSE(parsed.ids);
  EXPECT_EQ(parsed.error, "node argument " + std::to_string(beyond) + " is out of range");
  EXPECT_EQ(machine.parse_nodes("0").ids, list("0"));
  EXPECT_FALSE(machine.parse_cpus("zz").ids);
}

TEST(LiveMachine, AllAndInvertedCpuListsFollowTheAffinity) {
  const Machine machine = live_machine();
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<unsigned> allowed;
  for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
  }
  EXPECT_EQ(machine.parse_cpus("all").ids, CpuList(allowed));
  std::vector<unsigned> without_first(allowed.begin() + 1, allowed.end());
  EXPECT_EQ(machine.parse_cpus("!" + std::to_string(allowed.front())).ids, CpuList(without_first));
}

}  // namespace
}  // namespace tierctl::run
