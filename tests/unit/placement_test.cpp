// tierd's placement pieces behind their seams: regions from heat (pure),
// which planned moves each kernel_tiering mode carries out (pure), and the
// placement worker end to end on this test's own process with a scripted
// heat source and a scripted MemorySyscalls saying where each page is.
#include <gtest/gtest.h>
#include <numaif.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>

#include "memory_fakes.hpp"
#include "placement/heat_choice.hpp"
#include "placement/heat_regions.hpp"
#include "placement/kernel_coordination.hpp"
#include "placement/one_tier.hpp"
#include "placement/placement_worker.hpp"
#include "placement/plan_filter.hpp"
#include "test_support.hpp"

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
  FilteredPlan f = filter_plan({KernelTiering::own}, false, plan, two_tier_snapshot());
  ASSERT_EQ(f.execute.size(), 2u);
  EXPECT_TRUE(f.withheld.empty());
  EXPECT_EQ(f.execute[0].from_node, 2);
  EXPECT_EQ(f.execute[0].direction, MigrationDirection::promote);
  EXPECT_EQ(f.execute[1].from_node, 0);
  EXPECT_EQ(f.execute[1].direction, MigrationDirection::demote);
}

TEST(PlanFilter, ObserveAndPauseWithholdEverything) {
  const tier::policy::Plan plan{{move(kBase, 0), move(kBase + 2 * kMiB, 2)}};
  FilteredPlan observe = filter_plan({KernelTiering::observe}, false, plan, two_tier_snapshot());
  EXPECT_TRUE(observe.execute.empty());
  ASSERT_EQ(observe.withheld.size(), 2u);
  EXPECT_EQ(observe.withheld[0].why, "observe: tierd moves nothing");
  FilteredPlan paused = filter_plan({KernelTiering::own}, true, plan, two_tier_snapshot());
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
  FilteredPlan f = filter_plan({KernelTiering::coexist}, false, plan, snapshot);
  ASSERT_EQ(f.execute.size(), 2u);
  EXPECT_EQ(f.execute[0].move.target_node, 0u);
  EXPECT_EQ(f.execute[1].direction, MigrationDirection::demote);
  ASSERT_EQ(f.withheld.size(), 1u);
  EXPECT_EQ(f.withheld[0].planned.move.target_node, 1u);
  EXPECT_EQ(f.withheld[0].why, "coexist: node 1 has room, the kernel promotes into it");
}

// coexist with the kernel's NUMA balancing off (the kernel promotes nothing):
// tierd promotes into room too, or nothing would ever be promoted.
TEST(PlanFilter, CoexistPromotesIntoRoomWhenTheKernelDoesNot) {
  const tier::policy::Plan plan{{move(kBase, 0), move(kBase, 1), move(kBase + 2 * kMiB, 2)}};
  FilteredPlan f = filter_plan({KernelTiering::coexist, false}, false, plan, two_tier_snapshot());
  ASSERT_EQ(f.execute.size(), 3u);
  EXPECT_EQ(f.execute[1].move.target_node, 1u);
  EXPECT_EQ(f.execute[1].direction, MigrationDirection::promote);
  EXPECT_TRUE(f.withheld.empty());
}

// The kernel's knobs read through the SysRoot, and the sentence status gives.
TEST(KernelCoordination, ReadsTheKnobsAndSaysWhoMovesWhat) {
  tier::test::TempDir dir;
  using tier::test::write_text_file;
  write_text_file(dir.path() / "proc/sys/kernel/numa_balancing", "2\n");
  write_text_file(dir.path() / "sys/kernel/mm/numa/demotion_enabled", "true\n");
  KernelTieringNow now = read_kernel_tiering_now(tier::SysRoot(dir.path()));
  EXPECT_EQ(now.numa_balancing, 2u);
  EXPECT_EQ(now.demotion_enabled, true);
  EXPECT_TRUE(kernel_promotes_into_room(now));
  EXPECT_EQ(kernel_tiering_why(KernelTiering::coexist, now),
            "coexist: tierd leaves the kernel's settings as they are (kernel.numa_balancing is "
            "2, demotion_enabled is true); the kernel promotes into fast memory with room, "
            "tierd promotes where the fast node is too full for the kernel; the kernel demotes "
            "under reclaim, tierd demotes cold data ahead of it");

  write_text_file(dir.path() / "proc/sys/kernel/numa_balancing", "0\n");
  write_text_file(dir.path() / "sys/kernel/mm/numa/demotion_enabled", "false\n");
  now = read_kernel_tiering_now(tier::SysRoot(dir.path()));
  EXPECT_FALSE(kernel_promotes_into_room(now));
  EXPECT_NE(kernel_tiering_why(KernelTiering::coexist, now)
                .find("the kernel promotes nothing, so tierd promotes into room too; the kernel "
                      "demotes nothing, tierd demotes cold data"),
            std::string::npos);

  tier::test::TempDir empty;  // no NUMA balancing, no demotion: neither knob
  now = read_kernel_tiering_now(tier::SysRoot(empty.path()));
  EXPECT_FALSE(now.numa_balancing);
  EXPECT_FALSE(now.demotion_enabled);
  EXPECT_FALSE(kernel_promotes_into_room(now));
  EXPECT_NE(kernel_tiering_why(KernelTiering::coexist, now)
                .find("this kernel has no NUMA balancing, this kernel has no demotion"),
            std::string::npos);
  EXPECT_EQ(kernel_tiering_why(KernelTiering::observe, now),
            "observe: tierd samples, plans and reports, and moves nothing");
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
// What the scripted sources of one test were asked to do.
struct SourceLog {
  bool can_retarget = true;
  std::chrono::milliseconds start_delay{0};  // what each start takes
  int made = 0;
  std::vector<std::vector<pid_t>> started;
  std::vector<std::vector<pid_t>> retargeted;
};

class ScriptedSource : public tier::heat::HeatSource {
 public:
  explicit ScriptedSource(std::deque<std::vector<tier::heat::AccessSample>> script,
                          std::shared_ptr<SourceLog> log = std::make_shared<SourceLog>())
      : script_(std::move(script)), log_(std::move(log)) {}
  std::string_view name() const override { return "scripted"; }
  void start(const std::vector<pid_t>& pids) override {
    std::this_thread::sleep_for(log_->start_delay);
    log_->started.push_back(pids);
  }
  tier::heat::PollResult poll(std::vector<tier::heat::AccessSample>& out) override {
    ++counters_.polls;
    if (!script_.empty()) {
      out.insert(out.end(), script_.front().begin(), script_.front().end());
      counters_.samples += script_.front().size();
      script_.pop_front();
    }
    return {};
  }
  bool retarget(const std::vector<pid_t>& pids) override {
    if (log_->can_retarget) log_->retargeted.push_back(pids);
    return log_->can_retarget;
  }
  tier::heat::SourceCounters counters() const override { return counters_; }
  void stop() noexcept override {}

 private:
  std::deque<std::vector<tier::heat::AccessSample>> script_;
  std::shared_ptr<SourceLog> log_;
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

  // A promotion of this process's [start, end) to node 0, planned from `from`.
  static PlannedMove promotion(std::uint64_t start, std::uint64_t end, int from) {
    return {{getpid(), start, end, 0, "self", "promote: hot"}, from, MigrationDirection::promote};
  }

  // A worker over this process alone, its epochs appended to `epochs`.
  std::unique_ptr<PlacementWorker> watch_self(boost::asio::io_context& io,
                                              PlacementWorkerSettings s,
                                              std::vector<HeatEpoch>& epochs) {
    auto worker = std::make_unique<PlacementWorker>(
        io, std::move(s), [&epochs](HeatEpoch e) { epochs.push_back(std::move(e)); },
        [](std::vector<MoveOutcome>) {});
    worker->set_workloads({{"self", {getpid()}}});
    return worker;
  }

  // The outcomes of `moves`, handed to a worker at once.
  std::vector<MoveOutcome> carry_out(std::vector<PlannedMove> moves) {
    boost::asio::io_context io;
    std::vector<MoveOutcome> outcomes;
    PlacementWorker worker(
        io, settings({}), [](HeatEpoch) {},
        [&](std::vector<MoveOutcome> o) { outcomes = std::move(o); });
    worker.execute(std::move(moves));
    run_until(io, [&] { return !outcomes.empty(); });
    return outcomes;
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
      io, settings({s, s}), [&](HeatEpoch e) { views = std::move(e.views); },
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

// A child with this process's mappings (fork copies them), so the fake
// syscalls place its chunks too; ended and reaped by the destructor.
class Child {
 public:
  Child() : pid_(fork()) {
    if (pid_ == 0) {
      pause();
      _exit(0);
    }
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

tier::heat::AccessSample sample_at(pid_t pid, std::uint64_t addr, std::uint32_t weight) {
  tier::heat::AccessSample s;
  s.pid = static_cast<std::uint32_t>(pid);
  s.addr = addr;
  s.weight = weight;
  return s;
}

std::vector<pid_t> sorted(std::vector<pid_t> pids) {
  std::sort(pids.begin(), pids.end());
  return pids;
}

// Sources whose first instance delivers `first` once and later ones nothing;
// every instance reports to `log`.
SourceFactory logged_factory(std::shared_ptr<SourceLog> log,
                             std::vector<tier::heat::AccessSample> first) {
  return [log, first](std::string_view, const tier::heat::SourceOptions&) {
    std::deque<std::vector<tier::heat::AccessSample>> script;
    if (log->made++ == 0) script.push_back(first);
    return std::make_unique<ScriptedSource>(std::move(script), log);
  };
}

// However many workloads there are, one source watches all their processes,
// and each workload gets the regions and samples of its own processes only.
TEST_F(WorkerTest, EveryWorkloadSharesOneSourceAndGetsItsOwnProcessesHeat) {
  Child child;
  ASSERT_GT(child.pid(), 0);
  auto log = std::make_shared<SourceLog>();
  PlacementWorkerSettings s = settings({});
  s.factory = logged_factory(
      log, {sample_at(getpid(), base_ + 2 * kMiB, 5), sample_at(child.pid(), base_ + 4 * kMiB, 3)});
  boost::asio::io_context io;
  HeatEpoch epoch;
  PlacementWorker worker(
      io, s, [&](HeatEpoch e) { epoch = std::move(e); }, [](std::vector<MoveOutcome>) {});
  worker.set_workloads({{"self", {getpid()}}, {"child", {child.pid()}}});
  run_until(io, [&] { return epoch.views.size() == 2 && epoch.views[1].epoch_samples > 0; });
  ASSERT_EQ(epoch.views.size(), 2u);
  EXPECT_EQ(log->made, 1);
  ASSERT_EQ(log->started.size(), 1u);
  EXPECT_EQ(log->started[0], sorted({getpid(), child.pid()}));
  EXPECT_EQ(epoch.source, "scripted");
  EXPECT_EQ(epoch.processes, 2u);
  EXPECT_EQ(epoch.follow.starts, 1u);
  const WorkloadHeatView& self = epoch.views[0];
  const WorkloadHeatView& other = epoch.views[1];
  ASSERT_EQ(self.regions.size(), 4u);
  ASSERT_EQ(other.regions.size(), 4u);
  for (const Region& r : self.regions) EXPECT_EQ(r.pid, getpid());
  for (const Region& r : other.regions) EXPECT_EQ(r.pid, child.pid());
  EXPECT_EQ(self.epoch_samples, 1u);
  EXPECT_EQ(other.epoch_samples, 1u);
  EXPECT_DOUBLE_EQ(self.regions[1].heat, 5.0);
  EXPECT_EQ(self.regions[2].heat, 0.0);
  EXPECT_DOUBLE_EQ(other.regions[2].heat, 3.0);
  EXPECT_EQ(other.regions[1].heat, 0.0);
}

// A new process joins the running source in place: no second source.
TEST_F(WorkerTest, AChangedProcessSetIsHandedToTheRunningSource) {
  Child child;
  ASSERT_GT(child.pid(), 0);
  auto log = std::make_shared<SourceLog>();
  PlacementWorkerSettings s = settings({});
  s.factory = logged_factory(log, {});
  boost::asio::io_context io;
  HeatEpoch epoch;
  PlacementWorker worker(
      io, s, [&](HeatEpoch e) { epoch = std::move(e); }, [](std::vector<MoveOutcome>) {});
  worker.set_workloads({{"self", {getpid()}}});
  run_until(io, [&] { return epoch.views.size() == 1; });
  worker.set_workloads({{"self", {getpid()}}, {"child", {child.pid()}}});
  run_until(io, [&] { return epoch.views.size() == 2; });
  ASSERT_EQ(epoch.views.size(), 2u);
  EXPECT_EQ(log->made, 1);
  ASSERT_EQ(log->retargeted.size(), 1u);
  EXPECT_EQ(log->retargeted[0], sorted({getpid(), child.pid()}));
  EXPECT_EQ(epoch.follow.starts, 1u);
  EXPECT_EQ(epoch.follow.retargets, 1u);
  EXPECT_EQ(epoch.views[1].source, "scripted");
  EXPECT_EQ(epoch.views[1].regions.size(), 4u);
}

// A source that cannot follow (DAMON's targets) is restarted over the new
// set, and the processes that stay keep their heat: the HeatMaps are tierd's.
TEST_F(WorkerTest, ASourceThatCannotFollowIsRestartedAndTheHeatOfStayingProcessesIsKept) {
  Child child;
  ASSERT_GT(child.pid(), 0);
  auto log = std::make_shared<SourceLog>();
  log->can_retarget = false;
  PlacementWorkerSettings s = settings({});
  s.factory = logged_factory(log, {sample_at(getpid(), base_ + 2 * kMiB, 8)});
  boost::asio::io_context io;
  HeatEpoch epoch;
  PlacementWorker worker(
      io, s, [&](HeatEpoch e) { epoch = std::move(e); }, [](std::vector<MoveOutcome>) {});
  worker.set_workloads({{"self", {getpid()}}});
  run_until(io, [&] {
    return epoch.views.size() == 1 && epoch.views[0].regions.size() == 4 &&
           epoch.views[0].regions[1].heat == 8.0;
  });
  ASSERT_EQ(epoch.views.size(), 1u);
  worker.set_workloads({{"self", {getpid()}}, {"child", {child.pid()}}});
  run_until(io, [&] { return epoch.views.size() == 2; });
  ASSERT_EQ(epoch.views.size(), 2u);
  EXPECT_EQ(log->made, 2);
  ASSERT_EQ(log->started.size(), 2u);
  EXPECT_EQ(log->started[1], sorted({getpid(), child.pid()}));
  EXPECT_EQ(epoch.follow.starts, 2u);
  EXPECT_EQ(epoch.follow.retargets, 0u);
  // The second source delivered nothing: heat left on the chunk is the
  // first source's, decayed (halved per epoch), not lost with the restart.
  ASSERT_EQ(epoch.views[0].regions.size(), 4u);
  EXPECT_GT(epoch.views[0].regions[1].heat, 0.0);
  EXPECT_LT(epoch.views[0].regions[1].heat, 8.0);
}

// The census (maps read, move_pages query) is what grows with processes: an
// idle process is counted once every kCensusEvery epochs, not every epoch,
// and at once after tierd moved its pages, whose new node the view then shows.
TEST_F(WorkerTest, AnIdleProcessIsCountedOnceEveryFewEpochsAndAtOnceAfterAMove) {
  boost::asio::io_context io;
  std::vector<HeatEpoch> epochs;
  std::vector<MoveOutcome> outcomes;
  PlacementWorker worker(
      io, settings({}), [&](HeatEpoch e) { epochs.push_back(std::move(e)); },
      [&](std::vector<MoveOutcome> o) { outcomes = std::move(o); });
  worker.set_workloads({{"self", {getpid()}}});
  const std::size_t observed = 3 * kCensusEvery + 1;
  run_until(io, [&] { return epochs.size() >= observed; });
  ASSERT_GE(epochs.size(), observed);
  EXPECT_EQ(epochs[0].census, 1u);  // new: counted at once
  std::uint64_t counted = 0;
  for (std::size_t i = 1; i < observed; ++i) {
    counted += epochs[i].census;
    ASSERT_EQ(epochs[i].views.size(), 1u);
    EXPECT_EQ(epochs[i].views[0].regions.size(), 4u) << "epoch " << i;  // from the census
  }
  EXPECT_EQ(counted, 3u) << "census over " << observed - 1 << " idle epochs";

  worker.execute({promotion(base_, base_ + 2 * kMiB, 2)});
  run_until(io, [&] { return !outcomes.empty(); });
  ASSERT_EQ(outcomes.size(), 1u);
  const std::size_t after = epochs.size();
  run_until(io, [&] { return epochs.size() > after; });
  ASSERT_GT(epochs.size(), after);
  EXPECT_EQ(epochs[after].census, 1u);
  ASSERT_EQ(epochs[after].views[0].regions.size(), 4u);
  EXPECT_EQ(epochs[after].views[0].regions[0].node, 0);  // moved
  EXPECT_EQ(epochs[after].views[0].regions[1].node, 2);
}

// A census reads the tracked mappings from smaps only when /proc/PID/maps
// changed (smaps walks every page: seconds for a large process in the
// emulated machine). A mapping that appears after the first census is
// tracked at the next one, and its samples count from then on.
TEST_F(WorkerTest, AMappingThatAppearsLaterIsTrackedAtTheNextCensus) {
  // 4 GiB of address space with nothing resident: sparse, so untracked,
  // until a 2 MiB chunk in its middle is mapped (the maps then change).
  constexpr std::uint64_t kReserve = std::uint64_t{4} << 30;
  void* reserve =
      mmap(nullptr, kReserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(reserve, MAP_FAILED);
  const std::uint64_t chunk =
      (reinterpret_cast<std::uint64_t>(reserve) + kReserve / 2) & ~(2 * kMiB - 1);
  for (std::uint64_t a = chunk; a < chunk + 2 * kMiB; a += 4096) fake_.node_of[a] = 2;
  PlacementWorkerSettings s = settings({});
  s.factory = [this, chunk](std::string_view, const tier::heat::SourceOptions&) {
    // A sample in the chunk and one in the fixture's mapping every epoch.
    std::deque<std::vector<tier::heat::AccessSample>> script(
        2000, {sample_at(getpid(), chunk + 4096, 5), sample_at(getpid(), base_ + 4096, 5)});
    return std::make_unique<ScriptedSource>(std::move(script));
  };
  boost::asio::io_context io;
  std::vector<HeatEpoch> epochs;
  const auto worker = watch_self(io, std::move(s), epochs);
  auto has_chunk = [&](const HeatEpoch& e) {
    if (e.views.empty()) return false;
    for (const Region& r : e.views[0].regions) {
      if (r.start == chunk && r.heat > 0) return true;
    }
    return false;
  };
  run_until(io, [&] { return epochs.size() >= 3; });
  ASSERT_GE(epochs.size(), 3u);
  for (const HeatEpoch& e : epochs) EXPECT_FALSE(has_chunk(e));
  ASSERT_NE(mmap(reinterpret_cast<void*>(chunk), 2 * kMiB, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
            MAP_FAILED);
  reinterpret_cast<char*>(chunk)[0] = 1;
  const std::size_t mapped_at = epochs.size();
  run_until(io, [&] { return !epochs.empty() && has_chunk(epochs.back()); });
  ASSERT_TRUE(!epochs.empty() && has_chunk(epochs.back()))
      << "the new mapping's samples never showed in a region";
  // At the next census (each epoch with samples has one), or the one after
  // if the mapping came while an epoch was being read: not at the periodic
  // re-read of smaps, kSmapsEvery censuses later.
  std::size_t first = mapped_at;
  while (!has_chunk(epochs[first])) ++first;
  EXPECT_LE(first - mapped_at, 2u)
      << "tracked " << first - mapped_at << " epochs after it appeared";
  munmap(reserve, kReserve);
}

// Where a slow epoch went is in the epoch itself (status shows it): a
// source start that takes 50 ms shows in the start's own figure and in the
// epoch's time following the process set.
TEST_F(WorkerTest, ASlowSourceStartIsTimedInItsEpoch) {
  auto log = std::make_shared<SourceLog>();
  log->start_delay = 50ms;
  PlacementWorkerSettings s = settings({});
  s.factory = logged_factory(log, {sample_at(getpid(), base_ + 4096, 5)});
  boost::asio::io_context io;
  std::vector<HeatEpoch> epochs;
  const auto worker = watch_self(io, std::move(s), epochs);
  run_until(io, [&] { return epochs.size() >= 2; });
  ASSERT_GE(epochs.size(), 2u);
  EXPECT_EQ(epochs[0].follow.starts, 1u);
  EXPECT_GE(epochs[0].follow.last_start_s, 0.05);
  EXPECT_GE(epochs[0].timings.watch_ms, 50.0);
  // The next epoch starts nothing: following the same set is quick.
  EXPECT_LT(epochs[1].timings.watch_ms, epochs[0].timings.watch_ms);
  EXPECT_EQ(epochs[1].follow.last_start_s, epochs[0].follow.last_start_s);
}

TEST_F(WorkerTest, PlannedMovesAreCarriedOutAndCounted) {
  const std::vector<MoveOutcome> outcomes = carry_out(
      {promotion(base_, base_ + 4 * kMiB, 2), promotion(base_ + 4 * kMiB, base_ + 5 * kMiB, 2)});
  ASSERT_EQ(outcomes.size(), 1u);  // one batch: same workload, process, target, direction
  EXPECT_EQ(outcomes[0].moves, 2u);
  EXPECT_EQ(outcomes[0].report.pages.moved, 5 * kMiB / 4096);
  EXPECT_EQ(outcomes[0].reason, "promote: hot");
  EXPECT_EQ(fake_.node_of[base_], 0);
  EXPECT_EQ(fake_.node_of[base_ + 5 * kMiB - 4096], 0);
  EXPECT_EQ(fake_.node_of[base_ + 5 * kMiB], 2);  // past the planned range: left alone
  EXPECT_EQ(outcomes[0].from_node, 2);            // both moves from node 2
}

// A process's own memory policy: a mapping this test interleaves itself
// (mbind over node 0, the one node here) is never moved - the batch counts
// its pages against_policy with the reason - and the next epochs leave its
// regions out of what the policy plans, with its cpuset's nodes beside.
TEST_F(WorkerTest, AProcesssOwnPolicyIsHonouredAndItsRegionsLeftOut) {
  const unsigned long node0 = 1;
  ASSERT_EQ(syscall(SYS_mbind, base_, 8 * kMiB, MPOL_INTERLEAVE, &node0, 8 * sizeof node0, 0), 0)
      << strerror(errno);
  boost::asio::io_context io;
  std::vector<HeatEpoch> epochs;
  std::vector<MoveOutcome> outcomes;
  PlacementWorker worker(
      io, settings({sample_at(getpid(), base_ + 4096, 5)}),
      [&](HeatEpoch e) { epochs.push_back(std::move(e)); },
      [&](std::vector<MoveOutcome> o) { outcomes = std::move(o); });
  worker.set_workloads({{"self", {getpid()}}});
  run_until(io, [&] { return !epochs.empty() && !epochs.back().views[0].regions.empty(); });
  ASSERT_FALSE(epochs.empty());
  EXPECT_EQ(epochs.back().views[0].regions.size(), 4u);  // not known yet: planned
  EXPECT_EQ(epochs.back().views[0].self_placed_bytes, 0u);

  worker.execute({promotion(base_, base_ + 4 * kMiB, 2)});
  run_until(io, [&] { return !outcomes.empty(); });
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].report.pages.against_policy, 4 * kMiB / 4096);
  EXPECT_EQ(outcomes[0].report.pages.moved, 0u);
  EXPECT_EQ(outcomes[0].report.policy_detail, "memory policy interleave:0 excludes node 0");
  EXPECT_EQ(fake_.node_of[base_], 2);
  EXPECT_EQ(fake_.move_calls, 0) << "no move_pages(MOVE) for pages the policy keeps";

  const std::size_t seen = epochs.size();
  run_until(io, [&] { return epochs.size() >= seen + 2; });
  ASSERT_GE(epochs.size(), seen + 2);
  const WorkloadHeatView& view = epochs.back().views[0];
  EXPECT_TRUE(view.regions.empty());
  EXPECT_EQ(view.self_placed_bytes, 8 * kMiB);
  EXPECT_EQ(view.mems_allowed, std::vector<unsigned>{0});
}

// The loop applies a batch's moved bytes to the workload's residency from the
// batch's source node (apply_move_to_residency): a batch whose moves come
// from two nodes names none, so the workload is read again instead.
// A stopping worker does not finish a long move: the mover's next batch is
// skipped (a tierd told to stop, by SIGTERM or systemd, does not wait for
// minutes of page copies first; in the emulated machine under the latency
// model one batch of 5 120 pages took over 25 s).
TEST_F(WorkerTest, StoppingCancelsAMoveAtItsNextBatch) {
  boost::asio::io_context io;
  std::vector<MoveOutcome> outcomes;
  std::atomic<bool> moving{false};
  // Call 0 queries the first batch's nodes, call 1 moves it: slow.
  fake_.on_call = [&] {
    if (fake_.calls == 1) {
      moving.store(true);
      std::this_thread::sleep_for(300ms);
    }
  };
  auto worker = std::make_unique<PlacementWorker>(
      io, settings({}), [](HeatEpoch) {},
      [&](std::vector<MoveOutcome> o) { outcomes = std::move(o); });
  // 96 MiB: two batches of the mover's 16 384 pages (64 MiB).
  worker->execute({promotion(base_, base_ + 96 * kMiB, 2)});
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!moving.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(moving.load());
  worker.reset();  // stops while the first batch moves
  run_until(io, [&] { return !outcomes.empty(); });
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].report.stop_reason, tier::StopReason::cancelled);
  EXPECT_EQ(outcomes[0].report.pages.skipped, 96 * kMiB / 4096 - 16384);
  EXPECT_EQ(fake_.node_of[base_], 0);  // the first batch did move
}

TEST_F(WorkerTest, ABatchFromTwoSourceNodesNamesNoSource) {
  const std::vector<MoveOutcome> outcomes = carry_out(
      {promotion(base_, base_ + 2 * kMiB, 2), promotion(base_ + 2 * kMiB, base_ + 4 * kMiB, 3)});
  ASSERT_EQ(outcomes.size(), 1u);  // still one batch: same workload, process, target, direction
  EXPECT_EQ(outcomes[0].moves, 2u);
  EXPECT_EQ(outcomes[0].from_node, -1);
}

}  // namespace
}  // namespace tierd
