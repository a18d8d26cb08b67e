// tierd's placement pieces behind their seams: regions from heat (pure),
// which planned moves each kernel_tiering mode carries out (pure), and the
// placement worker end to end on this test's own process with a scripted
// heat source and a scripted MemorySyscalls saying where each page is.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <deque>

#include "memory_fakes.hpp"
#include "placement/heat_choice.hpp"
#include "placement/heat_regions.hpp"
#include "placement/one_tier.hpp"
#include "placement/placement_worker.hpp"
#include "placement/plan_filter.hpp"

namespace tierd {
namespace {

using namespace std::chrono_literals;
using tier::policy::Region;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kBase = std::uint64_t{1} << 30;  // 2 MiB aligned

TEST(HeatRegions, ActivityCreditsEveryChunkASampleCoversAndResetsPerEpoch) {
  ActivityMap activity;
  record_activity(activity, kBase + 4096, 0, 3, 5.0);         // one page in chunk 0
  record_activity(activity, kBase + kMiB, 3 * kMiB, 2, 6.0);  // a region over chunks 0 and 1
  record_activity(activity, kBase + 8 * kMiB, 4096, 0, 7.0);  // weight 0: no evidence
  const std::uint64_t c0 = kBase / kChunkBytes;
  ASSERT_EQ(activity.size(), 2u);
  EXPECT_EQ(activity[c0].accesses, 5u);
  EXPECT_EQ(activity[c0].last_access_s, 6.0);
  EXPECT_EQ(activity[c0 + 1].accesses, 2u);
  reset_epoch(activity);
  EXPECT_EQ(activity[c0].accesses, 0u);
  EXPECT_EQ(activity[c0].last_access_s, 6.0);  // remembered across epochs
}

TEST(HeatRegions, ChunksSumGranuleScoresAndSpreadWideGranulesByBytes) {
  const std::vector<tier::heat::AddressRange> tracked{{kBase, kBase + 5 * kMiB}};
  const std::vector<tier::heat::HeatRange> granules{
      {kBase + 4096, kBase + 8192, 3.0, 3.0},
      {kBase + 2 * kMiB, kBase + 6 * kMiB, 8.0, 8.0},  // wider than a chunk, past the mapping
  };
  ActivityMap activity;
  record_activity(activity, kBase, 0, 4, 9.0);
  const std::vector<Region> regions = chunk_regions(42, tracked, granules, activity);
  ASSERT_EQ(regions.size(), 3u);
  EXPECT_EQ(regions[0].start, kBase);
  EXPECT_EQ(regions[0].end, kBase + 2 * kMiB);
  EXPECT_DOUBLE_EQ(regions[0].heat, 3.0);
  EXPECT_EQ(regions[0].accesses, 4u);
  EXPECT_EQ(regions[0].last_access_s, 9.0);
  EXPECT_DOUBLE_EQ(regions[1].heat, 4.0);  // half of the 4 MiB granule
  EXPECT_EQ(regions[1].last_access_s, -1.0);
  EXPECT_EQ(regions[2].end, kBase + 5 * kMiB);  // clipped to the mapping
  EXPECT_DOUBLE_EQ(regions[2].heat, 2.0);       // the granule's 1 MiB inside it
  EXPECT_EQ(regions[2].pid, 42);
  EXPECT_EQ(regions[2].node, -1);
}

TEST(HeatRegions, NodeIsTheMajorityOfResidentProbesAndEmptyChunksAreDropped) {
  tier::test::FakeMemorySyscalls fake;
  // Chunk 0: 10 of its 16 probes (every 128 KiB) on node 2, 6 on node 0.
  for (std::uint64_t i = 0; i < 16; ++i) fake.node_of[kBase + i * 128 * 1024] = i < 10 ? 2 : 0;
  // Chunk 1: nothing resident. Chunk 2: one probe on node 3.
  fake.node_of[kBase + 4 * kMiB] = 3;
  std::vector<Region> regions = chunk_regions(7, {{kBase, kBase + 6 * kMiB}}, {}, {});
  ASSERT_TRUE(node_of_chunks(fake, 7, regions));
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].node, 2);
  EXPECT_EQ(regions[1].start, kBase + 4 * kMiB);
  EXPECT_EQ(regions[1].node, 3);

  fake.fail_call[fake.calls] = ESRCH;  // the process is gone
  ASSERT_FALSE(node_of_chunks(fake, 7, regions));
  EXPECT_TRUE(regions.empty());
}

// Two nodes of tier 0 (node 0 nearly full, node 1 with room) and node 2 in
// tier 1; one region on each.
tier::policy::Snapshot two_tier_snapshot() {
  tier::policy::Snapshot s;
  const std::uint64_t gib = std::uint64_t{1} << 30;
  s.nodes = {{0, 0, true, 4 * gib, gib / 2, 64 * kMiB},
             {1, 0, true, 64 * gib, 32 * gib, 64 * kMiB},
             {2, 1, false, 16 * gib, 8 * gib, 64 * kMiB}};
  tier::policy::WorkloadState w;
  w.id = "w";
  Region on_slow;
  on_slow.pid = 9;
  on_slow.start = kBase;
  on_slow.end = kBase + 2 * kMiB;
  on_slow.node = 2;
  Region on_fast = on_slow;
  on_fast.start = kBase + 2 * kMiB;
  on_fast.end = kBase + 4 * kMiB;
  on_fast.node = 0;
  w.regions = {on_fast, on_slow};  // out of order on purpose
  s.workloads.push_back(w);
  return s;
}

tier::policy::Move move(std::uint64_t start, unsigned target) {
  return {9, start, start + 2 * kMiB, target, "w", "test"};
}

TEST(PlanFilter, OwnCarriesOutEveryMoveAndTellsPromotionFromDemotion) {
  const tier::policy::Plan plan{{move(kBase, 0), move(kBase + 2 * kMiB, 2)}};
  FilteredPlan f = filter_plan(KernelTiering::own, false, plan, two_tier_snapshot());
  ASSERT_EQ(f.execute.size(), 2u);
  EXPECT_TRUE(f.withheld.empty());
  EXPECT_EQ(f.execute[0].from_node, 2);
  EXPECT_EQ(f.execute[0].direction, MigrationDirection::promote);
  EXPECT_EQ(f.execute[1].from_node, 0);
  EXPECT_EQ(f.execute[1].direction, MigrationDirection::demote);
}

TEST(PlanFilter, ObserveAndPauseWithholdEverything) {
  const tier::policy::Plan plan{{move(kBase, 0), move(kBase + 2 * kMiB, 2)}};
  FilteredPlan observe = filter_plan(KernelTiering::observe, false, plan, two_tier_snapshot());
  EXPECT_TRUE(observe.execute.empty());
  ASSERT_EQ(observe.withheld.size(), 2u);
  EXPECT_EQ(observe.withheld[0].why, "observe: tierd moves nothing");
  FilteredPlan paused = filter_plan(KernelTiering::own, true, plan, two_tier_snapshot());
  EXPECT_TRUE(paused.execute.empty());
  EXPECT_EQ(paused.withheld.size(), 2u);
}

// coexist: the kernel promotes into a fast node with room; tierd promotes only
// into one too full for that (node 0: 512 MiB free, below max(1 GiB, 4 GiB /
// 16) + 64 MiB), and always demotes.
TEST(PlanFilter, CoexistLeavesPromotionIntoRoomyNodesToTheKernel) {
  const tier::policy::Plan plan{{move(kBase, 0), move(kBase, 1), move(kBase + 2 * kMiB, 2)}};
  const tier::policy::Snapshot snapshot = two_tier_snapshot();
  EXPECT_EQ(kernel_promotion_floor(snapshot.nodes[0]), (std::uint64_t{1} << 30) + 64 * kMiB);
  EXPECT_EQ(kernel_promotion_floor(snapshot.nodes[1]), 4 * (std::uint64_t{1} << 30) + 64 * kMiB);
  FilteredPlan f = filter_plan(KernelTiering::coexist, false, plan, snapshot);
  ASSERT_EQ(f.execute.size(), 2u);
  EXPECT_EQ(f.execute[0].move.target_node, 0u);
  EXPECT_EQ(f.execute[1].direction, MigrationDirection::demote);
  ASSERT_EQ(f.withheld.size(), 1u);
  EXPECT_EQ(f.withheld[0].planned.move.target_node, 1u);
  EXPECT_EQ(f.withheld[0].why, "coexist: node 1 has room, the kernel promotes into it");
}

// own + auto: hint faults (bpf-fault) only while every fast node with CPUs is
// short of free memory, so a promotion rate limit of 0 holds the kernel's own
// promotion off; otherwise NUMA balancing stays off and `auto` picks.
TEST(HeatChoice, OwnUsesHintFaultsOnlyWhereKernelPromotionCanBeHeldOff) {
  Config own;
  own.kernel_tiering = KernelTiering::own;
  tier::policy::Snapshot s = two_tier_snapshot();  // node 0: 512 MiB free of 4 GiB; node 1 roomy
  HeatChoice roomy = choose_heat_source(own, true, s.nodes);
  EXPECT_EQ(roomy.source, "auto");
  EXPECT_NE(roomy.why.find("node 1 has 32768 MiB free"), std::string::npos) << roomy.why;
  s.nodes[1].free_bytes = 2 * (std::uint64_t{1} << 30);  // below its 4 GiB + 64 MiB floor
  HeatChoice held = choose_heat_source(own, true, s.nodes);
  EXPECT_EQ(held.source, "bpf-fault");
  EXPECT_NE(held.why.find("0 (512 MiB free < 1088 MiB)"), std::string::npos) << held.why;
  EXPECT_EQ(choose_heat_source(own, false, s.nodes).source, "auto");  // no BPF here
  Config named = own;
  named.heat_source = "damon";
  EXPECT_EQ(choose_heat_source(named, true, s.nodes).source, "damon");
  Config coexist;  // coexist and observe never change what the kernel scans
  EXPECT_EQ(choose_heat_source(coexist, true, s.nodes).source, "auto");
}

tier::Topology nodes_in_tiers(std::vector<std::pair<unsigned, std::uint64_t>> tier_and_memory) {
  tier::TopologyData data;
  for (unsigned id = 0; id < tier_and_memory.size(); ++id) {
    tier::Node node;
    node.id = id;
    node.tier = tier_and_memory[id].first;
    node.memory_total_bytes = tier_and_memory[id].second;
    data.nodes.push_back(node);
  }
  return tier::Topology(std::move(data));
}

// Nothing to choose between on one tier: tierd says so (log once, status).
TEST(OneTier, NotedOnlyWhenEveryMemoryNodeIsInOneTier) {
  const std::uint64_t gib = std::uint64_t{1} << 30;
  EXPECT_EQ(one_tier_note(nodes_in_tiers({{0, gib}, {1, gib}})), "");
  EXPECT_EQ(one_tier_note(nodes_in_tiers({{0, gib}, {0, gib}})),
            "every memory node (0,1) is in tier 0: no slower memory to demote to and no faster "
            "memory to promote to");
  // A CPU-only node of another tier holds no pages: still one tier of memory.
  EXPECT_EQ(one_tier_note(nodes_in_tiers({{0, gib}, {1, 0}})).rfind("every memory node (0) ", 0),
            0u);
  EXPECT_EQ(one_tier_note(nodes_in_tiers({{0, 0}})), "no node has memory: nothing to place");
}

// Plays back one batch of samples per poll.
class ScriptedSource : public tier::heat::HeatSource {
 public:
  explicit ScriptedSource(std::deque<std::vector<tier::heat::AccessSample>> script)
      : script_(std::move(script)) {}
  std::string_view name() const override { return "scripted"; }
  void start(const std::vector<pid_t>&) override {}
  tier::heat::PollResult poll(std::vector<tier::heat::AccessSample>& out) override {
    ++counters_.polls;
    if (!script_.empty()) {
      out.insert(out.end(), script_.front().begin(), script_.front().end());
      counters_.samples += script_.front().size();
      script_.pop_front();
    }
    return {};
  }
  tier::heat::SourceCounters counters() const override { return counters_; }
  void stop() noexcept override {}

 private:
  std::deque<std::vector<tier::heat::AccessSample>> script_;
  tier::heat::SourceCounters counters_;
};

// A real 8 MiB mapping of this process, 2 MiB aligned, that the fake
// syscalls place on node 2.
class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    void* raw =
        mmap(nullptr, 10 * kMiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(raw, MAP_FAILED);
    raw_ = static_cast<char*>(raw);
    base_ = (reinterpret_cast<std::uint64_t>(raw) + 2 * kMiB - 1) & ~(2 * kMiB - 1);
    for (std::uint64_t a = base_; a < base_ + 8 * kMiB; a += 4096) fake_.node_of[a] = 2;
  }
  void TearDown() override { munmap(raw_, 10 * kMiB); }

  PlacementWorkerSettings settings(std::vector<tier::heat::AccessSample> hot) {
    PlacementWorkerSettings s;
    s.heat_source = "scripted";
    s.epoch = 50ms;
    s.syscalls = &fake_;
    s.source_options.root = &live_;  // this process's own mappings
    // Every CPU on node 0: where this test's threads run is then node 0.
    s.source_options.cpu_node.assign(static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_CONF)), 0);
    s.factory = [hot](std::string_view, const tier::heat::SourceOptions&) {
      std::deque<std::vector<tier::heat::AccessSample>> script(3, hot);
      return std::make_unique<ScriptedSource>(std::move(script));
    };
    return s;
  }

  // Runs the loop until `done` or 30 s: a wait for the outcome, typically a
  // few ticks of 10 ms; the deadline is far from that even under ASan on a
  // loaded 2-core machine, and only a broken worker reaches it.
  template <typename Done>
  void run_until(boost::asio::io_context& io, Done done) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io.run_for(10ms);
      io.restart();
    }
  }

  char* raw_ = nullptr;
  std::uint64_t base_ = 0;
  tier::test::FakeMemorySyscalls fake_;
  const tier::SysRoot live_{"/"};
};

TEST_F(WorkerTest, RegionsCarryTheSampledHeatAndTheNodeOfTheirPages) {
  boost::asio::io_context io;
  tier::heat::AccessSample s;
  s.pid = static_cast<std::uint32_t>(getpid());
  s.addr = base_ + 2 * kMiB + 4096;  // the second chunk
  s.weight = 5;
  std::vector<WorkloadHeatView> views;
  PlacementWorker worker(
      io, settings({s, s}), [&](std::vector<WorkloadHeatView> v) { views = std::move(v); },
      [](std::vector<MoveOutcome>) {});
  worker.set_workloads({{"self", {getpid()}}});
  run_until(io, [&] { return !views.empty() && !views[0].regions.empty(); });
  ASSERT_EQ(views.size(), 1u);
  const WorkloadHeatView& view = views[0];
  EXPECT_EQ(view.id, "self");
  EXPECT_EQ(view.source, "scripted");
  EXPECT_EQ(view.epoch_samples, 2u);
  // Only the mapping the fake places is resident: its four chunks, on node 2.
  ASSERT_EQ(view.regions.size(), 4u);
  for (const Region& r : view.regions) EXPECT_EQ(r.node, 2);
  EXPECT_EQ(view.regions[1].start, base_ + 2 * kMiB);
  // This epoch's samples at full weight, as the simulator's policies see
  // them (samples, plan, then decay): heat thresholds mean the same in both.
  EXPECT_DOUBLE_EQ(view.regions[1].heat, 10.0);
  EXPECT_EQ(view.regions[1].accesses, 10u);
  EXPECT_EQ(view.regions[0].heat, 0.0);
  EXPECT_EQ(view.cpu_nodes, std::vector<int>{0});
}

// More workloads than the worker places at once: the first ones in the
// daemon's order get a source and regions, the rest are reported as not placed.
TEST_F(WorkerTest, WorkloadsPastTheCapAreReportedNotPlaced) {
  boost::asio::io_context io;
  PlacementWorkerSettings s = settings({});
  s.max_placed = 1;
  std::vector<WorkloadHeatView> views;
  PlacementWorker worker(
      io, s, [&](std::vector<WorkloadHeatView> v) { views = std::move(v); },
      [](std::vector<MoveOutcome>) {});
  worker.set_workloads({{"first", {getpid()}}, {"second", {getpid()}}});
  run_until(io, [&] { return views.size() == 2; });
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0].source, "scripted");
  EXPECT_FALSE(views[0].regions.empty());
  EXPECT_EQ(views[1].source, "");
  EXPECT_TRUE(views[1].regions.empty());
  EXPECT_EQ(views[1].heat_error,
            "not placed: tierd places 1 workloads at once (online first, then by priority) and "
            "2 are registered");
}

TEST_F(WorkerTest, PlannedMovesAreCarriedOutAndCounted) {
  boost::asio::io_context io;
  std::vector<MoveOutcome> outcomes;
  PlacementWorker worker(
      io, settings({}), [](std::vector<WorkloadHeatView>) {},
      [&](std::vector<MoveOutcome> o) { outcomes = std::move(o); });
  PlannedMove promote{{getpid(), base_, base_ + 4 * kMiB, 0, "self", "promote: hot"},
                      2,
                      MigrationDirection::promote};
  PlannedMove also{{getpid(), base_ + 4 * kMiB, base_ + 5 * kMiB, 0, "self", "promote: hot"},
                   2,
                   MigrationDirection::promote};
  worker.execute({promote, also});
  run_until(io, [&] { return !outcomes.empty(); });
  ASSERT_EQ(outcomes.size(), 1u);  // one batch: same workload, process, target, direction
  EXPECT_EQ(outcomes[0].moves, 2u);
  EXPECT_EQ(outcomes[0].report.pages.moved, 5 * kMiB / 4096);
  EXPECT_EQ(outcomes[0].reason, "promote: hot");
  EXPECT_EQ(fake_.node_of[base_], 0);
  EXPECT_EQ(fake_.node_of[base_ + 5 * kMiB - 4096], 0);
  EXPECT_EQ(fake_.node_of[base_ + 5 * kMiB], 2);  // past the planned range: left alone
}

}  // namespace
}  // namespace tierd
