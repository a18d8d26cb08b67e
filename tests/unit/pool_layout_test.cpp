// compute_layout(): the pool rules on constructed machines (exact CPUs and
// nodes worked out from the rules in docs/pools.md), on real machines
// (gathered trees), and the invariants of a 200-workload layout.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "test_support.hpp"
#include "tier/cpu/pool_layout.hpp"

namespace tier::cpu {
namespace {

namespace fs = std::filesystem;
using WC = WorkloadClass;

// nodes x cores_per_node x threads, numbered like Linux on x86: thread t of
// core c is CPU c + t * (total cores), so core c's siblings are c, c+cores, ...
CpuInventory machine(unsigned nodes, unsigned cores_per_node, unsigned threads) {
  const unsigned cores = nodes * cores_per_node;
  std::vector<LogicalCpu> cpus;
  for (unsigned t = 0; t < threads; ++t) {
    for (unsigned c = 0; c < cores; ++c) {
      cpus.push_back({c + t * cores, c, c / cores_per_node, c / cores_per_node});
    }
  }
  return CpuInventory(std::move(cpus));
}

struct CpulessSpec {
  unsigned id;
  unsigned tier;
  CpuList local_cpus;  // empty: place by distance
};

// A topology for `inventory`: its CPU nodes (tier 0) plus CPU-less nodes.
// Distances: 10 to self, 20 between CPU nodes; a CPU-less node is at 15 from
// `near_node[id]` and 30 from the rest.
Topology topology_for(const CpuInventory& inventory, const std::vector<CpulessSpec>& cpuless = {},
                      const std::map<unsigned, unsigned>& near_node = {}) {
  TopologyData data;
  for (unsigned n : inventory.nodes()) {
    Node node;
    node.id = n;
    node.cpus = inventory.cpus_of_node(n);
    node.local_cpus = node.cpus;
    node.kind = MemoryKind::dram;
    data.nodes.push_back(node);
  }
  for (const auto& spec : cpuless) {
    Node node;
    node.id = spec.id;
    node.local_cpus = spec.local_cpus;
    node.tier = spec.tier;
    data.nodes.push_back(node);
  }
  std::sort(data.nodes.begin(), data.nodes.end(),
            [](const Node& a, const Node& b) { return a.id < b.id; });
  if (!near_node.empty()) {
    for (const Node& a : data.nodes) {
      std::vector<unsigned> row;
      for (const Node& b : data.nodes) {
        const auto near = [&](const Node& x, const Node& y) {
          auto it = near_node.find(x.id);
          return it != near_node.end() && it->second == y.id;
        };
        row.push_back(a.id == b.id                       ? 10
                      : near(a, b) || near(b, a)         ? 15
                      : a.cpus.empty() || b.cpus.empty() ? 30
                                                         : 20);
      }
      data.distances.push_back(row);
    }
  }
  return Topology(std::move(data));
}

Claim claim(std::string workload, WC cls, const char* pool, std::string held = "") {
  auto spec = PoolSpec::parse(pool);
  if (!spec) throw std::runtime_error(std::string("bad pool in test: ") + pool);
  return {std::move(workload), cls, *spec, *CpuList::parse(held)};
}

const Assignment* find(const Layout& layout, const std::string& workload) {
  for (const auto& a : layout.assignments) {
    if (a.workload == workload) return &a;
  }
  return nullptr;
}

std::string cpus_of(const Layout& layout, const std::string& workload) {
  const Assignment* a = find(layout, workload);
  return a != nullptr ? a->cpus.to_string() : "<none>";
}

std::string refusal(const Layout& layout, const std::string& workload) {
  for (const auto& r : layout.refused) {
    if (r.workload == workload) return r.reason;
  }
  return "";
}

const PoolView* pool(const Layout& layout, const std::string& name) {
  for (const auto& p : layout.pools) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// Re-runs a layout with every claim holding what it got: the next recompute.
std::vector<Claim> holding(std::vector<Claim> claims, const Layout& layout) {
  for (auto& c : claims) {
    if (const Assignment* a = find(layout, c.workload); a != nullptr && c.pool.claims_cpus()) {
      c.held = a->cpus;
    }
  }
  return claims;
}

// --- shared, exclusive, immovable, reserved --------------------------------

// 2 nodes x 4 cores x 2 threads: core c = {c, c+8}; node 0 = cores 0-3.
TEST(PoolLayout, SharedIsEverythingButReservedAndExclusive) {
  const CpuInventory inv = machine(2, 4, 2);
  const Topology topo = topology_for(inv);
  PoolConfig config;
  config.reserved = *CpuList::parse("0,8");
  const Layout layout =
      compute_layout(inv, topo, config,
                     {claim("db", WC::online, "exclusive:2"), claim("web", WC::normal, "shared"),
                      claim("cache", WC::online, "immovable:2")});
  EXPECT_TRUE(layout.refused.empty()) << layout.refused.front().reason;
  // Node 0 (3 whole cores free) fits 2 more tightly than node 1 (4): pack.
  EXPECT_EQ(cpus_of(layout, "db"), "1,9");
  EXPECT_EQ(cpus_of(layout, "cache"), "2,10");
  // Immovable CPUs stay shared; reserved and exclusive ones do not.
  EXPECT_EQ(cpus_of(layout, "web"), "2-7,10-15");
  ASSERT_NE(pool(layout, "shared"), nullptr);
  EXPECT_EQ(pool(layout, "shared")->cpus.to_string(), "2-7,10-15");
  EXPECT_EQ(pool(layout, "shared")->members, std::vector<std::string>{"web"});
  ASSERT_NE(pool(layout, "exclusive:2:db"), nullptr);
  EXPECT_EQ(pool(layout, "exclusive:2:db")->members, std::vector<std::string>{"db"});
  EXPECT_EQ(find(layout, "db")->pool, "exclusive:2");
  EXPECT_EQ(find(layout, "cache")->pool, "immovable:2");
  EXPECT_EQ(find(layout, "web")->pool, "shared");
}

TEST(PoolLayout, ExclusiveTakesWholeCores) {
  const CpuInventory inv = machine(1, 4, 2);  // core c = {c, c+4}
  const Layout layout = compute_layout(
      inv, topology_for(inv), {},
      {claim("a", WC::online, "exclusive:4"), claim("b", WC::normal, "immovable:2")});
  EXPECT_EQ(cpus_of(layout, "a"), "0-1,4-5");  // cores 0 and 1, both threads
  EXPECT_EQ(cpus_of(layout, "b"), "2,6");      // core 2
}

TEST(PoolLayout, NewClaimsNeverTakeHeldCpus) {
  const CpuInventory inv = machine(1, 4, 1);
  const Layout layout = compute_layout(
      inv, topology_for(inv), {},
      {claim("new", WC::normal, "exclusive:2"), claim("old", WC::normal, "immovable:2", "0-1"),
       claim("older", WC::normal, "exclusive:1", "2")});
  EXPECT_EQ(cpus_of(layout, "old"), "0-1");
  EXPECT_EQ(cpus_of(layout, "older"), "2");
  // Only CPU 3 is neither held nor reserved.
  EXPECT_EQ(cpus_of(layout, "new"), "<none>");
  EXPECT_EQ(refusal(layout, "new"),
            "exclusive:2: asks for 2 CPUs but only 1 CPU is free for it (others are reserved or "
            "held by immovable/exclusive workloads)");
}

TEST(PoolLayout, TwoHoldersOfOneCpuFirstKeepsIt) {
  const CpuInventory inv = machine(1, 4, 1);
  const Layout layout = compute_layout(
      inv, topology_for(inv), {},
      {claim("a", WC::normal, "exclusive:2", "1-2"), claim("b", WC::normal, "exclusive:2", "2-3")});
  EXPECT_EQ(cpus_of(layout, "a"), "1-2");
  EXPECT_EQ(cpus_of(layout, "b"), "3");  // keeps 3; one more would empty the shared pool
  EXPECT_EQ(refusal(layout, "b"),
            "exclusive:2: would leave the shared pool empty (1 CPU left outside reserved and "
            "exclusive CPUs; at least one must stay shared) (cannot grow from 1 to 2; keeps 3)");
}

TEST(PoolLayout, ReservedCpusAreInNoPool) {
  const CpuInventory inv = machine(1, 4, 1);
  PoolConfig config;
  config.reserved = *CpuList::parse("0-1");
  const Layout layout =
      compute_layout(inv, topology_for(inv), config,
                     {claim("x", WC::normal, "immovable:1"), claim("y", WC::offline, "shared")});
  EXPECT_EQ(cpus_of(layout, "x"), "2");
  EXPECT_EQ(cpus_of(layout, "y"), "2-3");
  for (const auto& p : layout.pools) {
    EXPECT_FALSE(p.cpus.contains(0) || p.cpus.contains(1)) << p.name;
  }
}

// --- SMT siblings: online exclusive vs offline -----------------------------

// 3 cores x 2 threads: core c = {c, c+3}.
TEST(PoolLayout, OrphanSiblingOfOnlineExclusiveNeverGoesOffline) {
  const CpuInventory inv = machine(1, 3, 2);
  const Layout layout = compute_layout(
      inv, topology_for(inv), {},
      {claim("latency", WC::online, "exclusive:1"), claim("batch", WC::offline, "exclusive:2"),
       claim("pinned", WC::offline, "immovable:2"), claim("late", WC::offline, "immovable:1"),
       claim("front", WC::online, "immovable:1"), claim("spare", WC::offline, "shared"),
       claim("api", WC::online, "shared")});
  EXPECT_EQ(cpus_of(layout, "latency"), "0");  // CPU 3 (its sibling) is the orphan
  EXPECT_EQ(cpus_of(layout, "batch"), "1,4");
  EXPECT_EQ(cpus_of(layout, "pinned"), "2,5");
  EXPECT_EQ(cpus_of(layout, "late"), "<none>");
  EXPECT_EQ(refusal(layout, "late"),
            "immovable:1: asks for 1 CPU but only 0 CPUs are free for it (others are reserved or "
            "held by immovable/exclusive workloads; an offline workload may not use a sibling of "
            "an online exclusive core)");
  EXPECT_EQ(cpus_of(layout, "front"), "3");  // an online workload may use the orphan
  // Shared = everything but exclusive CPUs: 2,3,5 (immovable ones stay).
  EXPECT_EQ(cpus_of(layout, "api"), "2-3,5");
  EXPECT_EQ(cpus_of(layout, "spare"), "2,5");  // without the orphan
}

TEST(PoolLayout, OnlineExclusiveNeverSharesACoreWithOffline) {
  const CpuInventory inv = machine(1, 2, 2);  // core 0 = {0,2}, core 1 = {1,3}
  const Layout layout = compute_layout(
      inv, topology_for(inv), {},
      {claim("batch", WC::offline, "immovable:1", "0"), claim("web", WC::online, "exclusive:2")});
  // Core 0's free sibling 2 is next to an offline holder: web takes core 1.
  EXPECT_EQ(cpus_of(layout, "web"), "1,3");
  const Layout tight = compute_layout(
      inv, topology_for(inv), {},
      {claim("batch", WC::offline, "immovable:1", "0"), claim("web", WC::online, "exclusive:3")});
  EXPECT_EQ(refusal(tight, "web"),
            "exclusive:3: asks for 3 CPUs but only 2 CPUs are free for it (others are reserved or "
            "held by immovable/exclusive workloads; an online exclusive workload may not share a "
            "core with an offline one)");
}

// --- numa:N ------------------------------------------------------------------

TEST(PoolLayout, NumaPoolIsTheSharedCpusOfItsNode) {
  const CpuInventory inv = machine(2, 2, 1);  // node 0 = 0-1, node 1 = 2-3
  const Topology topo = topology_for(inv, {{2, 1, *CpuList::parse("0-1")}});
  const Layout layout =
      compute_layout(inv, topo, {},
                     {claim("x", WC::normal, "exclusive:1"), claim("n1", WC::normal, "numa:1"),
                      claim("n0", WC::normal, "numa:0"), claim("ghost", WC::normal, "numa:7"),
                      claim("cxl", WC::normal, "numa:2")});
  EXPECT_EQ(cpus_of(layout, "x"), "0");
  EXPECT_EQ(cpus_of(layout, "n0"), "1");
  EXPECT_EQ(cpus_of(layout, "n1"), "2-3");
  ASSERT_NE(pool(layout, "numa:1"), nullptr);
  EXPECT_EQ(pool(layout, "numa:1")->members, std::vector<std::string>{"n1"});
  EXPECT_EQ(refusal(layout, "ghost"), "numa:7: node 7 does not exist (nodes with CPUs: 0-1)");
  EXPECT_EQ(refusal(layout, "cxl"),
            "numa:2: node 2 has no CPUs (memory-only; nodes with CPUs: 0-1)");
  EXPECT_EQ(find(layout, "ghost"), nullptr);
}

TEST(PoolLayout, NumaPoolWithEveryCpuTakenIsRefused) {
  const CpuInventory inv = machine(2, 2, 1);
  PoolConfig config;
  config.reserved = *CpuList::parse("2");
  const Layout layout = compute_layout(
      inv, topology_for(inv), config,
      {claim("x", WC::normal, "exclusive:1", "3"), claim("n1", WC::normal, "numa:1")});
  EXPECT_EQ(refusal(layout, "n1"),
            "numa:1: every CPU of node 1 is reserved or held by exclusive workloads");
}

// --- pack vs spread ----------------------------------------------------------

TEST(PoolLayout, PackFillsTheTightestNodeSpreadTheRoomiest) {
  const CpuInventory inv = machine(2, 4, 1);  // node 0 = 0-3, node 1 = 4-7
  const std::vector<Claim> claims{claim("a", WC::normal, "exclusive:2"),
                                  claim("b", WC::normal, "exclusive:1")};
  PoolConfig pack;
  const Layout packed = compute_layout(inv, topology_for(inv), pack, claims);
  EXPECT_EQ(cpus_of(packed, "a"), "0-1");
  EXPECT_EQ(cpus_of(packed, "b"), "2");
  PoolConfig spread;
  spread.placement = PoolConfig::Placement::spread;
  const Layout spreaded = compute_layout(inv, topology_for(inv), spread, claims);
  EXPECT_EQ(cpus_of(spreaded, "a"), "0-1");
  EXPECT_EQ(cpus_of(spreaded, "b"), "4");
}

TEST(PoolLayout, ClaimLargerThanANode) {
  const CpuInventory inv = machine(2, 4, 1);
  const std::vector<Claim> claims{claim("big", WC::normal, "exclusive:6")};
  EXPECT_EQ(cpus_of(compute_layout(inv, topology_for(inv), {}, claims), "big"), "0-5");
  PoolConfig spread;
  spread.placement = PoolConfig::Placement::spread;
  EXPECT_EQ(cpus_of(compute_layout(inv, topology_for(inv), spread, claims), "big"), "0-2,4-6");
}

// --- live resize -------------------------------------------------------------

TEST(PoolLayout, GrowKeepsHeldCpusAndMovesNoOtherHolder) {
  const CpuInventory inv = machine(1, 6, 1);
  const Layout layout = compute_layout(inv, topology_for(inv), {},
                                       {claim("grow", WC::normal, "exclusive:3", "1"),
                                        claim("other", WC::normal, "immovable:1", "2")});
  EXPECT_EQ(cpus_of(layout, "other"), "2");
  EXPECT_EQ(cpus_of(layout, "grow"), "0-1,3");  // nearest to 1: 0 (gap 1), then 3 (gap 2)
  EXPECT_TRUE(layout.refused.empty());
}

TEST(PoolLayout, GrowFillsItsOwnCoresFirst) {
  const CpuInventory inv = machine(1, 4, 2);  // core c = {c, c+4}
  const Layout layout =
      compute_layout(inv, topology_for(inv), {}, {claim("g", WC::online, "exclusive:3", "2")});
  EXPECT_EQ(cpus_of(layout, "g"), "1-2,6");  // sibling 6 first, then the next core over (1 or 3)
}

TEST(PoolLayout, ShrinkDropsFromTheEnd) {
  const CpuInventory inv = machine(1, 4, 2);
  const Layout layout = compute_layout(inv, topology_for(inv), {},
                                       {claim("s", WC::normal, "exclusive:2", "1-2,5-6")});
  EXPECT_EQ(cpus_of(layout, "s"), "1,5");  // core 1 kept, core 2 given back
  EXPECT_EQ(pool(layout, "shared")->cpus.to_string(), "0,2-4,6-7");
}

TEST(PoolLayout, GrowThatCannotBeMetKeepsWhatItHolds) {
  const CpuInventory inv = machine(1, 4, 1);
  const Layout layout = compute_layout(
      inv, topology_for(inv), {},
      {claim("a", WC::normal, "exclusive:1", "0"), claim("b", WC::normal, "exclusive:4", "1")});
  EXPECT_EQ(cpus_of(layout, "b"), "1");
  EXPECT_EQ(find(layout, "b")->pool, "exclusive:1");
  EXPECT_EQ(refusal(layout, "b"),
            "exclusive:4: would leave the shared pool empty (2 CPUs left outside reserved and "
            "exclusive CPUs; at least one must stay shared) (cannot grow from 1 to 4; keeps 1)");
}

// --- refusals ----------------------------------------------------------------

TEST(PoolLayout, RefusesMoreCpusThanExist) {
  const CpuInventory inv = machine(2, 4, 2);
  PoolConfig config;
  config.reserved = *CpuList::parse("0,8");
  const Layout layout = compute_layout(
      inv, topology_for(inv), config,
      {claim("huge", WC::online, "exclusive:17"), claim("big", WC::online, "immovable:15"),
       claim("all", WC::online, "exclusive:14"), claim("fits", WC::online, "exclusive:13")});
  EXPECT_EQ(refusal(layout, "huge"), "exclusive:17: asks for 17 CPUs but the machine has 16 CPUs");
  EXPECT_EQ(refusal(layout, "big"),
            "immovable:15: asks for 15 CPUs but only 14 are outside the reserved CPUs 0,8");
  EXPECT_EQ(refusal(layout, "all"),
            "exclusive:14: would leave the shared pool empty (14 CPUs left outside reserved and "
            "exclusive CPUs; at least one must stay shared)");
  EXPECT_EQ(find(layout, "fits")->cpus.size(), 13u);
  EXPECT_EQ(pool(layout, "shared")->cpus.size(), 1u);
}

TEST(PoolLayout, ZeroSizedClaimIsRefused) {
  const CpuInventory inv = machine(1, 2, 1);
  Claim bad{"z", WC::normal, {PoolKind::exclusive, 0}, {}};
  const Layout layout = compute_layout(inv, topology_for(inv), {}, {bad});
  EXPECT_EQ(refusal(layout, "z"), "pool \"exclusive:0\": K must be at least 1");
}

// --- memory alignment --------------------------------------------------------

// Nodes 0,1 with CPUs; 2 (tier 1) and 3 (tier 2) hang off node 0 by locality,
// 4 (tier 1) off node 1, 5 (tier 1) has no locality and is nearest node 1.
TEST(PoolLayout, MemoryNodesFollowCpusAndClass) {
  const CpuInventory inv = machine(2, 2, 1);  // node 0 = 0-1, node 1 = 2-3
  const Topology topo = topology_for(inv,
                                     {{2, 1, *CpuList::parse("0-1")},
                                      {3, 2, *CpuList::parse("0-1")},
                                      {4, 1, *CpuList::parse("2-3")},
                                      {5, 1, CpuList()}},
                                     {{5, 1}});
  const Layout layout = compute_layout(
      inv, topo, {},
      {claim("fast", WC::online, "exclusive:1"), claim("slow", WC::offline, "immovable:1"),
       claim("plain", WC::normal, "numa:1"), claim("bulk", WC::offline, "shared"),
       claim("svc", WC::online, "shared")});
  EXPECT_EQ(cpus_of(layout, "fast"), "0");
  EXPECT_EQ(find(layout, "fast")->mems, (std::vector<unsigned>{0, 2, 3}));
  EXPECT_EQ(cpus_of(layout, "slow"), "1");
  EXPECT_EQ(find(layout, "slow")->mems, (std::vector<unsigned>{3, 2, 0}));
  EXPECT_EQ(find(layout, "plain")->mems, (std::vector<unsigned>{1, 4, 5}));
  EXPECT_EQ(find(layout, "svc")->mems, (std::vector<unsigned>{0, 1, 2, 4, 5, 3}));
  EXPECT_EQ(find(layout, "bulk")->mems, (std::vector<unsigned>{3, 2, 4, 5, 0, 1}));
  EXPECT_EQ(pool(layout, "shared")->mems, (std::vector<unsigned>{0, 1, 2, 4, 5, 3}));
}

// --- real machines -----------------------------------------------------------

class RealTree {
 public:
  explicit RealTree(const fs::path& root) : root_(root) {}
  static RealTree unpack(const std::string& name, test::TempDir& dir) {
    test::unpack_tarball(fs::path(TIER_SHARED_TOPOLOGIES) / "hwloc-linux" / (name + ".tar.bz2"),
                         dir.path());
    return RealTree(*fs::directory_iterator(dir.path()));
  }
  CpuInventory inventory() const { return load_cpu_inventory({SysRoot(root_), std::nullopt, {}}); }
  Topology topology() const { return load_topology({SysRoot(root_), std::nullopt, {}}); }

 private:
  fs::path root_;
};

bool whole_cores(const CpuInventory& inv, const CpuList& cpus) {
  for (unsigned cpu : cpus.ids()) {
    for (unsigned sibling : inv.cores()[inv.cpu(cpu)->core].ids()) {
      if (!cpus.contains(sibling)) return false;
    }
  }
  return true;
}

TEST(PoolLayoutRealMachine, SmtMachineGetsWholeCores) {
  test::TempDir dir("tier-layout-smt");
  const RealTree tree = RealTree::unpack("16em64t-4s2c2t", dir);
  const CpuInventory inv = tree.inventory();
  const Layout layout =
      compute_layout(inv, tree.topology(), {},
                     {claim("a", WC::online, "exclusive:4"), claim("b", WC::offline, "exclusive:2"),
                      claim("c", WC::online, "immovable:6")});
  ASSERT_TRUE(layout.refused.empty()) << layout.refused.front().reason;
  for (const char* w : {"a", "b", "c"}) {
    EXPECT_TRUE(whole_cores(inv, find(layout, w)->cpus)) << w << ": " << cpus_of(layout, w);
  }
  EXPECT_EQ(cpus_of(layout, "a"), "0,4,8,12");  // cores 0 and 1 (package 0)
  EXPECT_EQ(pool(layout, "shared")->cpus.size(), 10u);
}

TEST(PoolLayoutRealMachine, CxlNodesFollowTheirCpus) {
  const RealTree tree(fs::path(TIER_FIXTURES) / "sysfs" / "2s-cxl-hmat");
  const CpuInventory inv = tree.inventory();
  const Topology topo = tree.topology();
  const Layout layout =
      compute_layout(inv, topo, {},
                     {claim("hot", WC::online, "numa:0"), claim("cold", WC::offline, "numa:0"),
                      claim("far", WC::online, "numa:1")});
  ASSERT_TRUE(layout.refused.empty()) << layout.refused.front().reason;
  // Node 2 is the CXL node next to node 0 (SLIT 14), node 3 next to node 1.
  EXPECT_EQ(find(layout, "hot")->mems, (std::vector<unsigned>{0, 2}));
  EXPECT_EQ(find(layout, "cold")->mems, (std::vector<unsigned>{2, 0}));
  EXPECT_EQ(find(layout, "far")->mems, (std::vector<unsigned>{1, 3}));
  EXPECT_EQ(cpus_of(layout, "hot"), inv.cpus_of_node(0).to_string());
}

// --- 200 workloads, 256 CPUs, 8 nodes ----------------------------------------

std::vector<Claim> many_claims(unsigned count, unsigned seed) {
  std::mt19937 rng(seed);
  const char* pools[] = {"shared",      "numa:3", "immovable:1", "exclusive:1", "exclusive:2",
                         "immovable:2", "numa:6", "exclusive:4", "exclusive:8"};
  std::vector<Claim> claims;
  for (unsigned i = 0; i < count; ++i) {
    const WC cls = static_cast<WC>(rng() % 3);
    claims.push_back(claim("w" + std::to_string(i), cls, pools[rng() % std::size(pools)]));
  }
  return claims;
}

void expect_consistent(const CpuInventory& inv, const std::vector<Claim>& claims,
                       const Layout& layout) {
  std::map<std::string, const Claim*> by_name;
  for (const auto& c : claims) by_name[c.workload] = &c;
  std::map<std::string, const PoolView*> pools;
  for (const auto& p : layout.pools) pools[p.name] = &p;
  const PoolView& shared = *pools.at("shared");
  ASSERT_FALSE(shared.cpus.empty());
  std::set<unsigned> exclusive, claimed, online_exclusive_cores;
  for (const auto& a : layout.assignments) {
    const Claim& c = *by_name.at(a.workload);
    ASSERT_FALSE(a.cpus.empty()) << a.workload;
    ASSERT_FALSE(a.mems.empty()) << a.workload;
    if (c.pool.claims_cpus()) {
      EXPECT_EQ(a.cpus.size(), c.pool.value) << a.workload;
      for (unsigned cpu : a.cpus.ids()) {
        EXPECT_TRUE(claimed.insert(cpu).second) << "CPU " << cpu << " in two claims";
        if (c.pool.kind == PoolKind::exclusive) {
          exclusive.insert(cpu);
          EXPECT_FALSE(shared.cpus.contains(cpu)) << cpu;
          if (c.cls == WC::online) online_exclusive_cores.insert(inv.cpu(cpu)->core);
        } else {
          EXPECT_TRUE(shared.cpus.contains(cpu)) << "immovable CPU " << cpu << " left shared";
        }
      }
      const PoolView& own = *pools.at(a.pool + ":" + a.workload);
      EXPECT_EQ(own.cpus, a.cpus);
    } else {
      const PoolView& p = *pools.at(a.pool);
      for (unsigned cpu : a.cpus.ids()) EXPECT_TRUE(p.cpus.contains(cpu)) << a.workload << cpu;
      for (unsigned cpu : p.cpus.ids()) EXPECT_TRUE(shared.cpus.contains(cpu)) << p.name << cpu;
    }
  }
  for (const auto& a : layout.assignments) {
    if (by_name.at(a.workload)->cls != WC::offline) continue;
    for (unsigned cpu : a.cpus.ids()) {
      EXPECT_EQ(online_exclusive_cores.count(inv.cpu(cpu)->core), 0u)
          << a.workload << " (offline) got CPU " << cpu << " of an online exclusive core";
    }
  }
  for (const auto& r : layout.refused) {
    // Every reason names the pool it is about ("exclusive:8: ...", "numa:6: ...").
    const std::string spec = by_name.at(r.workload)->pool.to_string();
    EXPECT_EQ(r.reason.rfind(spec + ": ", 0), 0u) << r.workload << ": " << r.reason;
  }
  EXPECT_EQ(shared.cpus.size() + exclusive.size(), inv.all().size());
  EXPECT_EQ(layout.assignments.size() + layout.refused.size(), claims.size());
}

TEST(PoolLayoutScale, TwoHundredWorkloadsAreConsistentAndStable) {
  const CpuInventory inv = machine(8, 16, 2);  // 256 CPUs
  const Topology topo = topology_for(inv);
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<Claim> claims = many_claims(200, seed);
    const Layout first = compute_layout(inv, topo, {}, claims);
    expect_consistent(inv, claims, first);
    // About 1.8 CPUs asked per claim: 360 for 256, so some claims must be refused.
    EXPECT_FALSE(first.refused.empty());
    // A recompute where every claim holds what it got changes nothing.
    const Layout again = compute_layout(inv, topo, {}, holding(claims, first));
    ASSERT_EQ(again.assignments.size(), first.assignments.size());
    for (std::size_t i = 0; i < first.assignments.size(); ++i) {
      EXPECT_EQ(again.assignments[i].cpus, first.assignments[i].cpus)
          << first.assignments[i].workload;
    }
  }
}

TEST(PoolLayoutScale, HoldersSurviveAnArrivalAndAnExit) {
  const CpuInventory inv = machine(8, 16, 2);
  const Topology topo = topology_for(inv);
  std::vector<Claim> claims = many_claims(120, 7);
  const Layout before = compute_layout(inv, topo, {}, claims);
  claims = holding(claims, before);
  claims.erase(claims.begin() + 10);                                       // one leaves
  claims.insert(claims.begin(), claim("new", WC::online, "exclusive:8"));  // one arrives first
  const Layout after = compute_layout(inv, topo, {}, claims);
  expect_consistent(inv, claims, after);
  for (const auto& c : claims) {
    if (c.pool.claims_cpus() && !c.held.empty()) {
      EXPECT_EQ(cpus_of(after, c.workload), c.held.to_string()) << c.workload << " moved";
    }
  }
}

}  // namespace
}  // namespace tier::cpu
