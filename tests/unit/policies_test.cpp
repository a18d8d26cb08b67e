// The placement policies on hand-built snapshots: which regions move where,
// in what order, and what they leave alone (watermarks, quotas, budgets,
// anti-thrash). Outcomes only: the plan's moves.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "tier/policy/policy.hpp"

namespace tier::policy {
namespace {

constexpr std::uint64_t MiB = 1ULL << 20;
constexpr std::uint64_t GiB = 1ULL << 30;
constexpr std::uint64_t kRegion = 64 * MiB;

// Nodes 0 and 1 fast with CPUs, 2 and 3 slow (CXL-like), 1 GiB / 4 GiB.
Snapshot machine() {
  Snapshot s;
  s.nodes = {{0, 0, true, GiB, GiB, 0},
             {1, 0, true, GiB, GiB, 0},
             {2, 1, false, 4 * GiB, 4 * GiB, 0},
             {3, 1, false, 4 * GiB, 4 * GiB, 0}};
  s.latency_ns = {{100, 150, 250, 300}, {150, 100, 300, 250}};
  s.now_s = 100;
  s.tick_s = 1;
  return s;
}

NodeState& node(Snapshot& s, unsigned id) {
  for (NodeState& n : s.nodes) {
    if (n.node == id) return n;
  }
  throw std::logic_error("no node");
}

// `heats` regions of 64 MiB on `on_node`, consecutive addresses from `base`.
WorkloadState workload(const std::string& id, WorkloadClass cls, int cpu_node, unsigned on_node,
                       const std::vector<double>& heats, std::uint64_t base = 0x10000000,
                       pid_t pid = 100) {
  WorkloadState w;
  w.id = id;
  w.workload_class = cls;
  w.cpu_nodes = {cpu_node};
  w.pids = {pid};
  for (std::size_t i = 0; i < heats.size(); ++i) {
    Region r;
    r.pid = pid;
    r.start = base + i * kRegion;
    r.end = r.start + kRegion;
    r.node = static_cast<int>(on_node);
    r.heat = heats[i];
    r.accesses = heats[i] > 0 ? 1 : 0;
    r.last_access_s = heats[i] > 0 ? 99 : -1;
    w.regions.push_back(r);
  }
  return w;
}

// Uses a node's memory as the regions on it do.
void account(Snapshot& s) {
  for (NodeState& n : s.nodes) n.free_bytes = n.total_bytes;
  for (const WorkloadState& w : s.workloads) {
    for (const Region& r : w.regions)
      node(s, static_cast<unsigned>(r.node)).free_bytes -= r.bytes();
  }
}

std::unique_ptr<Policy> make(const std::string& name, const Params& params = {}) {
  const PolicyInfo* info = find_policy(name);
  EXPECT_NE(info, nullptr) << name;
  return info->make(resolve_params(*info, params));
}

std::uint64_t start_of(const WorkloadState& w, std::size_t i) {
  return w.regions[i].start;
}

TEST(PolicyRegistry, ListsTheThreePoliciesWithTheirParameters) {
  EXPECT_EQ(policy_names(), "balanced, static, tpp");
  const PolicyInfo* balanced = find_policy("balanced");
  ASSERT_NE(balanced, nullptr);
  EXPECT_FALSE(balanced->params.empty());
  EXPECT_THROW(resolve_params(*balanced, {{"nope", 1}}), std::invalid_argument);
  EXPECT_THROW(resolve_params(*balanced, {{"hysteresis", -1}}), std::invalid_argument);
  EXPECT_EQ(resolve_params(*balanced, {{"budget_mbps", 10}}).at("budget_mbps"), 10);
}

TEST(Balanced, PromotesHottestFirstIntoTheFastNodeNearestTheWorkload) {
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 1, 2, {1, 10, 5})};
  account(s);
  // Node 1 has room for two regions above its high watermark (4% = 41 MiB).
  node(s, 1).free_bytes = 41 * MiB + 2 * kRegion + MiB;
  node(s, 0).free_bytes = 0;  // full: never chosen
  Plan plan = make("balanced")->plan(s);
  ASSERT_EQ(plan.moves.size(), 2u);
  EXPECT_EQ(plan.moves[0].start, start_of(s.workloads[0], 1));  // heat 10
  EXPECT_EQ(plan.moves[1].start, start_of(s.workloads[0], 2));  // heat 5
  for (const Move& m : plan.moves) {
    EXPECT_EQ(m.target_node, 1u);
    EXPECT_EQ(m.reason.rfind("promote:", 0), 0u) << m.reason;
  }
}

TEST(Balanced, UnderPressureDemotesOfflineBeforeOnlineToTheNearestSlowNode) {
  Snapshot s = machine();
  // Node 0 is nearly full: 8 online regions (hot-ish) and 7 offline ones.
  std::vector<double> online(8, 2.0), offline(7, 3.0);
  offline[4] = 1.0;  // the coldest offline region
  s.workloads = {workload("on", WorkloadClass::online, 0, 0, online, 0x10000000, 100),
                 workload("off", WorkloadClass::offline, 0, 0, offline, 0x90000000, 200)};
  account(s);
  node(s, 0).free_bytes = 10 * MiB;  // under the 2% low watermark (20 MiB)
  Plan plan = make("balanced")->plan(s);
  // One move, of the start of that region: just enough (whole 2 MiB chunks)
  // to bring node 0 back to its high watermark (4% = 41 MiB free).
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].workload_id, "off");
  EXPECT_EQ(plan.moves[0].start, start_of(s.workloads[1], 4));
  EXPECT_EQ(plan.moves[0].end - plan.moves[0].start, 32 * MiB);  // 10 + 32 >= 40.96
  EXPECT_EQ(plan.moves[0].target_node, 2u);                      // node 2 is nearer node 0's CPUs
  EXPECT_NE(plan.moves[0].reason.find("low free watermark"), std::string::npos);
}

TEST(Balanced, SwapsColdFastDataForHotSlowData) {
  Snapshot s = machine();
  s.nodes.erase(s.nodes.begin() + 1);  // one fast node
  s.workloads = {
      workload("cold", WorkloadClass::normal, 0, 0, std::vector<double>(15, 0.1), 0x10000000, 100),
      workload("hot", WorkloadClass::normal, 0, 2, {10, 9}, 0x90000000, 200)};
  account(s);
  node(s, 0).free_bytes = 41 * MiB;  // exactly at the high watermark: no room
  Plan plan = make("balanced")->plan(s);
  std::size_t promoted = 0, demoted = 0;
  for (const Move& m : plan.moves) {
    if (m.workload_id == "hot") {
      EXPECT_EQ(m.target_node, 0u);
      ++promoted;
    } else {
      EXPECT_EQ(m.target_node, 2u);
      EXPECT_NE(m.reason.find("room for hotter data"), std::string::npos) << m.reason;
      ++demoted;
    }
  }
  EXPECT_EQ(promoted, 2u);
  EXPECT_EQ(demoted, 2u);
}

// A contested fast tier: node 0 is full (at its high watermark) of 15
// regions of cold data, node 2 holds 16 regions, and more data has heat than
// fits. Each tick sets every region's heat and this epoch's samples.
struct ContestedCase {
  Snapshot s = machine();
  std::unique_ptr<Policy> policy = make("balanced");
  ContestedCase() {
    s.nodes.erase(s.nodes.begin() + 1);  // one fast node
    s.workloads = {
        workload("fast", WorkloadClass::normal, 0, 0, std::vector<double>(15, 1)),
        workload("slow", WorkloadClass::normal, 0, 2, std::vector<double>(16, 1), 0x90000000, 200)};
    account(s);
    node(s, 0).free_bytes = 41 * MiB;
  }
  // (heat, samples) of the fast data, of the slow data's first `hot` regions
  // and of its others, at time `now_s`.
  Plan tick(double now_s, std::pair<double, std::uint64_t> fast, std::size_t hot,
            std::pair<double, std::uint64_t> slow_hot, std::pair<double, std::uint64_t> slow) {
    for (Region& r : s.workloads[0].regions) std::tie(r.heat, r.accesses) = fast;
    for (std::size_t i = 0; i < s.workloads[1].regions.size(); ++i) {
      Region& r = s.workloads[1].regions[i];
      std::tie(r.heat, r.accesses) = i < hot ? slow_hot : slow;
    }
    s.now_s = now_s;
    return policy->plan(s);
  }
};

// A pass over all the slow data (12 samples each, against the fast data's
// 5) outranks the fast tier's data by heat, but no region's samples stand
// out from the rest: nothing is swapped, in the scan's epoch or while its
// heat decays after it.
TEST(Balanced, AScanOfColdDataSwapsNothing) {
  ContestedCase c;
  EXPECT_TRUE(c.tick(100, {5, 5}, 0, {0, 0}, {12, 12}).moves.empty()) << "the scan's epoch";
  EXPECT_TRUE(c.tick(101, {2.5, 0}, 0, {0, 0}, {6, 0}).moves.empty()) << "its heat decaying";
  EXPECT_TRUE(c.tick(102, {1.5, 1}, 0, {0, 0}, {4, 1}).moves.empty()) << "back to the background";
}

// Two slow regions whose samples (7 an epoch) stand out from the
// background's (1 per region) in two epochs in a row are swapped in on the
// second; the first epoch alone, at this heat, is not enough.
TEST(Balanced, DataThatStaysWarmIsSwappedInOnItsSecondEpoch) {
  ContestedCase c;
  EXPECT_TRUE(c.tick(100, {2, 1}, 2, {7, 7}, {2, 1}).moves.empty()) << "one epoch of evidence";
  const Plan plan = c.tick(101, {2, 1}, 2, {10.5, 7}, {2, 1});
  std::set<std::uint64_t> promoted;
  std::size_t demoted = 0;
  for (const Move& m : plan.moves) {
    if (m.workload_id == "slow") {
      EXPECT_EQ(m.target_node, 0u);
      promoted.insert(m.start);
    } else {
      EXPECT_EQ(m.target_node, 2u) << m.reason;
      ++demoted;
    }
  }
  EXPECT_EQ(promoted, (std::set<std::uint64_t>{start_of(c.s.workloads[1], 0),
                                               start_of(c.s.workloads[1], 1)}));
  EXPECT_EQ(demoted, 2u);
}

// A warm region whose second epoch brings only background samples (1, as
// every other region) is not swapped in on its decaying heat.
TEST(Balanced, OneWarmEpochThenBackgroundSwapsNothing) {
  ContestedCase c;
  EXPECT_TRUE(c.tick(100, {2, 1}, 2, {7, 7}, {2, 1}).moves.empty());
  EXPECT_TRUE(c.tick(101, {2, 1}, 2, {7, 1}, {2, 1}).moves.empty());
}

// Offline suppression's memory signal (Snapshot::demote_offline_first): the
// fast node is full of offline data hotter than the online workload's data
// on the slow node. Normally the hotter offline data keeps its place; under
// the signal it makes room for the online data, and offline data on the slow
// node is not promoted even into free room.
TEST(Balanced, UnderSuppressionOfflineDataLeavesTheFastTierForOnlineData) {
  Snapshot s = machine();
  s.nodes.erase(s.nodes.begin() + 1);  // one fast node
  s.workloads = {
      workload("off", WorkloadClass::offline, 0, 0, std::vector<double>(15, 50), 0x10000000, 100),
      workload("on", WorkloadClass::online, 0, 2, {10, 10}, 0x90000000, 200)};
  account(s);
  node(s, 0).free_bytes = 41 * MiB;  // at the high watermark: no room
  EXPECT_TRUE(make("balanced")->plan(s).moves.empty()) << "hotter offline data stays";

  s.demote_offline_first = true;
  // The offline workload's own (cut) budget does not hold back the
  // demotions that make room for online data.
  s.workloads[0].budget_mbps = 1;
  Plan plan = make("balanced")->plan(s);
  std::uint64_t promoted = 0, demoted = 0;
  for (const Move& m : plan.moves) {
    if (m.workload_id == "on") {
      EXPECT_EQ(m.target_node, 0u);
      promoted += m.end - m.start;
    } else {
      EXPECT_EQ(m.workload_id, "off");
      EXPECT_EQ(m.target_node, 2u) << m.reason;
      demoted += m.end - m.start;
    }
  }
  EXPECT_EQ(promoted, 2 * kRegion);
  EXPECT_GE(demoted, 2 * kRegion);

  // Offline data on the slow node with room on the fast node: not promoted.
  Snapshot roomy = machine();
  roomy.workloads = {workload("off", WorkloadClass::offline, 0, 2, {50, 50}, 0x10000000, 100)};
  account(roomy);
  EXPECT_FALSE(make("balanced")->plan(roomy).moves.empty()) << "promoted without the signal";
  roomy.demote_offline_first = true;
  EXPECT_TRUE(make("balanced")->plan(roomy).moves.empty());
}

// A workload in a pool may only use its cpuset's memory nodes (the kernel
// refuses moves elsewhere): promotion goes to the allowed fast node, never to
// the roomier one it may not use. (Room on node 0 is made from offline data,
// out of the target set under suppression: the target set is computed over
// the whole fast tier, where the cold data still fits.)
TEST(Balanced, MovesOnlyToTheNodesTheWorkloadMayUse) {
  Snapshot s = machine();
  s.demote_offline_first = true;
  s.workloads = {
      workload("cold", WorkloadClass::offline, 0, 0, std::vector<double>(15, 0.1), 0x10000000, 100),
      workload("hot", WorkloadClass::online, 0, 2, {10, 9}, 0x90000000, 200)};
  account(s);
  node(s, 0).free_bytes = 41 * MiB;  // node 0 at its high watermark; node 1 roomy
  Plan free_to_choose = make("balanced")->plan(s);
  ASSERT_FALSE(free_to_choose.moves.empty());
  EXPECT_EQ(free_to_choose.moves[0].target_node, 1u) << "without a limit: the roomy fast node";

  s.workloads[1].allowed_nodes = {0, 2};  // pool numa:0: node 0 + its CPU-less neighbour
  Plan plan = make("balanced")->plan(s);
  std::uint64_t promoted = 0;
  for (const Move& m : plan.moves) {
    EXPECT_NE(m.target_node, 1u) << m.workload_id << " " << m.reason;
    if (m.workload_id == "hot") {
      EXPECT_EQ(m.target_node, 0u);
      promoted += m.end - m.start;
    }
  }
  EXPECT_EQ(promoted, 2 * kRegion);
}

TEST(Balanced, RespectsTheFastTierQuota) {
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 2, {8, 7, 6, 5})};
  s.workloads[0].quota_bytes = 2 * kRegion;
  account(s);
  Plan plan = make("balanced")->plan(s);
  ASSERT_EQ(plan.moves.size(), 2u);
  EXPECT_EQ(plan.moves[0].start, start_of(s.workloads[0], 0));
  EXPECT_EQ(plan.moves[1].start, start_of(s.workloads[0], 1));
}

TEST(Balanced, DemotesWhatIsOverTheQuota) {
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 0, {8, 7, 6, 5})};
  s.workloads[0].quota_bytes = 3 * kRegion;
  account(s);
  Plan plan = make("balanced")->plan(s);
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].start, start_of(s.workloads[0], 3));  // the coldest
  EXPECT_EQ(plan.moves[0].target_node, 2u);
}

TEST(Balanced, MovesNoMoreThanTheBudgetAllows) {
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 2, {8, 7, 6, 5})};
  account(s);
  // Whole regions while the budget lasts, then a 2 MiB-aligned part of the next.
  auto moved = [](const Plan& plan) {
    std::uint64_t bytes = 0;
    for (const Move& m : plan.moves) bytes += m.end - m.start;
    return bytes;
  };
  Plan plan = make("balanced", {{"budget_mbps", 130}})->plan(s);
  EXPECT_EQ(moved(plan), 130 * MiB);
  ASSERT_EQ(plan.moves.size(), 3u);
  EXPECT_EQ(plan.moves[2].end - plan.moves[2].start, 2 * MiB);
  s.budget_mbps = 64;  // the daemon's global budget wins when lower
  EXPECT_EQ(moved(make("balanced", {{"budget_mbps", 130}})->plan(s)), 64 * MiB);
  s.budget_mbps = 0;
  s.workloads[0].budget_mbps = 100;  // per-workload budget
  EXPECT_EQ(moved(make("balanced", {{"budget_mbps", 0}})->plan(s)), 100 * MiB);
}

TEST(Balanced, AMovedRegionRestsAndABouncerIsHeld) {
  // high_free_pct 8: the pressure demotion below takes the whole region
  // (history is kept per 64 KiB part: a partial demotion would hold only the
  // part that moved; see ABouncingPartHoldsOnlyItself).
  auto policy = make(
      "balanced",
      {{"min_residency_s", 10}, {"backoff_s", 100}, {"bounce_limit", 2}, {"high_free_pct", 8}});
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 2, {5})};
  account(s);
  s.now_s = 0;
  ASSERT_EQ(policy->plan(s).moves.size(), 1u);  // promoted at t=0
  // Now it is on node 0 and node 0 is under pressure: it is the only victim.
  s.workloads[0].regions[0].node = 0;
  account(s);
  node(s, 0).free_bytes = 5 * MiB;
  s.now_s = 5;
  EXPECT_TRUE(policy->plan(s).moves.empty()) << "moved back within min_residency_s";
  s.now_s = 11;
  ASSERT_EQ(policy->plan(s).moves.size(), 1u);  // demoted: second move within 100 s
  // Back on node 2 and hot again: two moves in the window make it a bouncer.
  s.workloads[0].regions[0].node = 2;
  account(s);
  s.now_s = 30;
  EXPECT_TRUE(policy->plan(s).moves.empty()) << "a bouncing region is held";
  s.now_s = 112;  // the window has passed
  EXPECT_EQ(policy->plan(s).moves.size(), 1u);
}

TEST(Balanced, ABouncingPartHoldsOnlyItself) {
  auto policy =
      make("balanced", {{"min_residency_s", 10}, {"backoff_s", 100}, {"bounce_limit", 2}});
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 2, {5})};
  account(s);
  s.now_s = 0;
  ASSERT_EQ(policy->plan(s).moves.size(), 1u);  // all 64 MiB promoted at t=0
  s.workloads[0].regions[0].node = 0;
  account(s);
  node(s, 0).free_bytes = 5 * MiB;  // under the low watermark: 36 MiB must leave
  s.now_s = 11;
  Plan demoted = policy->plan(s);
  ASSERT_EQ(demoted.moves.size(), 1u);
  const std::uint64_t start = start_of(s.workloads[0], 0);
  ASSERT_EQ(demoted.moves[0].start, start);
  ASSERT_EQ(demoted.moves[0].end, start + 36 * MiB);
  // Those 36 MiB moved twice within 100 s and are held; the other 28 MiB
  // moved once, long enough ago, and may move.
  s.workloads[0].regions[0].node = 2;
  account(s);
  s.now_s = 30;
  Plan plan = policy->plan(s);
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].start, start + 36 * MiB);
  EXPECT_EQ(plan.moves[0].end, start + kRegion);
  EXPECT_EQ(plan.moves[0].target_node, 0u);
}

// One fast node of 256 MiB (room for three 64 MiB regions above its high
// watermark), three regions promoted at t=0, and at t=5 the node full (to
// its high watermark) and a hotter region on the slow node.
struct ResidencyCase {
  std::unique_ptr<Policy> policy = make("balanced", {{"budget_mbps", 0}});
  Snapshot s = machine();
  ResidencyCase() {
    s.nodes.erase(s.nodes.begin() + 1);
    node(s, 0).total_bytes = 256 * MiB;
    s.workloads = {workload("old", WorkloadClass::normal, 0, 2, {100, 100, 100}, 0x10000000, 100)};
    for (Region& r : s.workloads[0].regions) r.accesses = 100;
    account(s);
    s.now_s = 0;
    EXPECT_EQ(policy->plan(s).moves.size(), 3u);
    for (Region& r : s.workloads[0].regions) r.node = 0;
    s.workloads.push_back(workload("new", WorkloadClass::normal, 0, 2, {40}, 0x90000000, 200));
    s.workloads[1].regions[0].accesses = 40;
  }
  Plan at(double now_s, std::uint64_t old_accesses) {
    for (Region& r : s.workloads[0].regions) r.accesses = old_accesses;
    account(s);
    node(s, 0).free_bytes = 10 * MiB;  // under its high watermark, over its low one: no room
    s.now_s = now_s;
    return policy->plan(s);
  }
};

TEST(Balanced, ACoolingRegionGivesWayWithinItsResidency) {
  // The old regions got no access this epoch while their heat (100, 8.5
  // heat per sample in this tick: 11.8 samples expected) says they should
  // have: the hot set moved. They may leave 5 s after they came.
  ResidencyCase c;
  Plan plan = c.at(5, 0);
  std::uint64_t promoted = 0, demoted = 0;
  for (const Move& m : plan.moves) {
    if (m.workload_id == "new") {
      EXPECT_EQ(m.target_node, 0u);
      promoted += m.end - m.start;
    } else {
      EXPECT_EQ(m.target_node, 2u);
      demoted += m.end - m.start;
    }
  }
  EXPECT_EQ(promoted, kRegion);
  // The room it needs above the high watermark (10.24 MiB short of it), in
  // whole 2 MiB chunks.
  EXPECT_EQ(demoted, kRegion + 2 * MiB);
}

TEST(Balanced, AWarmRegionKeepsItsResidency) {
  // Still accessed as its heat says: the minimum residency holds it, even
  // for hotter data (and after it, the hysteresis would).
  ResidencyCase c;
  c.s.workloads[1].regions[0].heat = 300;
  c.s.workloads[1].regions[0].accesses = 300;
  EXPECT_TRUE(c.at(5, 50).moves.empty());
}

TEST(Balanced, UnusedBudgetCarriesOverUpToTheBurst) {
  auto policy = make("balanced", {{"budget_mbps", 64}, {"burst_s", 4}});
  Snapshot s = machine();
  s.workloads = {
      workload("w", WorkloadClass::online, 0, 0, {8})};  // already right: nothing to move
  account(s);
  for (int t = 1; t <= 9; ++t) {
    s.now_s = t;
    ASSERT_TRUE(policy->plan(s).moves.empty());
  }
  // Nine idle ticks, but the bucket holds four seconds' worth.
  s.workloads.push_back(
      workload("h", WorkloadClass::online, 0, 2, {9, 9, 9, 9, 9, 9}, 0x90000000, 200));
  account(s);
  s.now_s = 10;
  std::uint64_t bytes = 0;
  for (const Move& m : policy->plan(s).moves) bytes += m.end - m.start;
  EXPECT_EQ(bytes, 4 * 64 * MiB);
  s.now_s = 11;  // spent: one tick's worth again
  bytes = 0;
  for (const Move& m : policy->plan(s).moves) bytes += m.end - m.start;
  EXPECT_EQ(bytes, 64 * MiB);
}

TEST(Balanced, LeavesPlacementAloneWhenItIsAlreadyRight) {
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 0, {8, 7}),
                 workload("c", WorkloadClass::offline, 0, 2, {0, 0, 0}, 0x90000000, 200)};
  account(s);
  EXPECT_TRUE(make("balanced")->plan(s).moves.empty());
}

TEST(Balanced, SameInputsSamePlan) {
  Snapshot s = machine();
  s.workloads = {workload("a", WorkloadClass::online, 0, 2, {3, 1, 4, 1, 5}),
                 workload("b", WorkloadClass::offline, 1, 3, {9, 2, 6}, 0x90000000, 200)};
  account(s);
  Plan first = make("balanced")->plan(s);
  Plan second = make("balanced")->plan(s);
  ASSERT_EQ(first.moves.size(), second.moves.size());
  for (std::size_t i = 0; i < first.moves.size(); ++i) {
    EXPECT_EQ(first.moves[i].start, second.moves[i].start);
    EXPECT_EQ(first.moves[i].target_node, second.moves[i].target_node);
  }
  EXPECT_FALSE(first.moves.empty());
}

TEST(Tpp, PromotesOnASecondAccessWithinTheWindow) {
  auto policy = make("tpp", {{"window_s", 2}});
  Snapshot s = machine();
  // Accesses count per 2 MiB block: 32 for a 64 MiB region is one per block.
  s.workloads = {workload("w", WorkloadClass::normal, 0, 2, {1, 1})};
  s.workloads[0].regions[0].accesses = 32;
  s.workloads[0].regions[1].accesses = 64;  // two per block in one epoch
  account(s);
  s.now_s = 0;
  Plan plan = policy->plan(s);
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].start, start_of(s.workloads[0], 1));
  EXPECT_EQ(plan.moves[0].target_node, 0u);
  s.now_s = 1;  // region 0 seen again within the window: promoted too,
  plan = policy->plan(s);
  ASSERT_EQ(plan.moves.size(), 2u);
  // after region 1, which faults more often (the kernel's promotion order).
  EXPECT_EQ(plan.moves[0].start, start_of(s.workloads[0], 1));
  EXPECT_EQ(plan.moves[1].start, start_of(s.workloads[0], 0));
}

TEST(Tpp, OneAccessPerLongerThanTheWindowNeverPromotes) {
  auto policy = make("tpp", {{"window_s", 2}});
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::normal, 0, 2, {1})};
  s.workloads[0].regions[0].accesses = 32;  // one per 2 MiB block each time
  account(s);
  for (double t : {0.0, 5.0, 10.0}) {
    s.now_s = t;
    EXPECT_TRUE(policy->plan(s).moves.empty()) << "t=" << t;
  }
}

TEST(Tpp, DemotesLeastRecentlyUsedUnderPressure) {
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 0, {1, 1, 1})};
  s.workloads[0].regions[0].last_access_s = 90;
  s.workloads[0].regions[1].last_access_s = 50;  // least recently used
  s.workloads[0].regions[2].last_access_s = 95;
  account(s);
  node(s, 0).free_bytes = 10 * MiB;
  Plan plan = make("tpp")->plan(s);
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].start, start_of(s.workloads[0], 1));
  EXPECT_EQ(plan.moves[0].target_node, 2u);
}

TEST(Static, NeverPlansAMove) {
  Snapshot s = machine();
  s.workloads = {workload("w", WorkloadClass::online, 0, 2, {9, 9, 9})};
  account(s);
  EXPECT_TRUE(make("static")->plan(s).moves.empty());
}

}  // namespace
}  // namespace tier::policy
