// Source selection and the collection loop behind `tierctl heat`, with
// scripted sources (the HeatSource seam) and a scripted MemorySyscalls that
// says which node each page is on. The process is this test's own pid (its
// maps are real); the sample addresses are made up and resolved by the fake.
#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <functional>

#include "memory_fakes.hpp"
#include "tier/heat/collector.hpp"
#include "tier/heat/empty_reason.hpp"
#include "tier/heat/selection.hpp"

namespace tier::heat {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kBase = 0x7f0000000000;  // 2 MiB aligned
constexpr std::uint64_t kPage = 4096;

// Plays back one batch of samples per poll; inactive after the script when
// `stop_after_script` is set.
class ScriptedSource : public HeatSource {
 public:
  ScriptedSource(std::string name, std::deque<std::vector<AccessSample>> script, bool stop_after,
                 bool fail_start)
      : name_(std::move(name)),
        script_(std::move(script)),
        stop_after_(stop_after),
        fail_start_(fail_start) {}
  std::string_view name() const override { return name_; }
  void start(const std::vector<pid_t>&) override {
    if (fail_start_) throw SourceError(name_ + ": not permitted");
  }
  PollResult poll(std::vector<AccessSample>& out) override {
    ++counters_.polls;
    if (!script_.empty()) {
      for (const auto& s : script_.front()) out.push_back(s);
      counters_.samples += script_.front().size();
      script_.pop_front();
    }
    if (script_.empty() && stop_after_) return {false, "process 42 exited"};
    return {};
  }
  SourceCounters counters() const override { return counters_; }
  void stop() noexcept override { stopped = true; }
  bool stopped = false;

 private:
  std::string name_;
  std::deque<std::vector<AccessSample>> script_;
  bool stop_after_, fail_start_;
  SourceCounters counters_;
};

AccessSample sample_at(std::uint64_t addr, int cpu, std::uint32_t weight = 1) {
  AccessSample s;
  s.addr = addr;
  s.pid = static_cast<std::uint32_t>(getpid());
  s.cpu = cpu;
  s.weight = weight;
  s.kind = SampleKind::hint_fault;
  return s;
}

// Node 0: CPUs 0-1, node 1: CPUs 2-3, node 2: memory only.
Topology three_nodes() {
  TopologyData data;
  for (unsigned id = 0; id < 3; ++id) {
    Node node;
    node.id = id;
    if (id < 2) node.cpus = CpuList({2 * id, 2 * id + 1});
    data.nodes.push_back(node);
  }
  return Topology(std::move(data));
}

struct Fixture : ::testing::Test {
  SysRoot root;
  Topology topo = three_nodes();
  test::FakeMemorySyscalls memory;
  CollectOptions options;
  std::map<std::string, std::deque<std::vector<AccessSample>>> scripts;
  std::map<std::string, bool> stop_after, fail_start;

  void SetUp() override {
    options.duration = 300ms;
    options.interval = 100ms;
    options.decay = 1.0;              // exact sums
    options.kernel_activity = false;  // scripted sources only: no eBPF
    options.factory = [this](std::string_view name, const SourceOptions&) {
      std::string n(name);
      return std::make_unique<ScriptedSource>(n, scripts[n], stop_after[n], fail_start[n]);
    };
  }
  HeatReport run(std::vector<std::string> sources) {
    options.sources = std::move(sources);
    return collect_heat(root, topo, memory, getpid(), options);
  }
};

TEST_F(Fixture, HotRangesAreSplitByNodeAndSharesCountCpuVersusMemoryNode) {
  // Pages 0-3 on node 0, 4-7 on node 1; every access from CPU 0 (node 0).
  for (int i = 0; i < 8; ++i) memory.node_of[kBase + i * kPage] = i < 4 ? 0 : 1;
  std::vector<AccessSample> batch;
  for (int i = 0; i < 8; ++i) {
    for (int k = 0; k < (i < 4 ? 3 : 1); ++k) batch.push_back(sample_at(kBase + i * kPage + 64, 0));
  }
  scripts["a"] = {batch};
  auto report = run({"a"});

  EXPECT_EQ(report.sources.at(0).counters.samples, 16u);
  EXPECT_EQ(report.sources.at(0).kinds.at("hint_fault"), 16u);
  // 12 samples local (node-0 pages from a node-0 CPU), 4 remote.
  EXPECT_DOUBLE_EQ(report.cross_numa.local(), 12);
  EXPECT_DOUBLE_EQ(report.cross_numa.remote(), 4);
  EXPECT_DOUBLE_EQ(report.cross_numa.local_share(), 0.75);
  ASSERT_EQ(report.per_node.size(), 2u);
  EXPECT_EQ(report.per_node[0].node, 0);
  EXPECT_DOUBLE_EQ(report.per_node[0].score, 12);
  EXPECT_DOUBLE_EQ(report.per_node[1].score, 4);
  // The scored pages are adjacent; the report cuts them where the node changes.
  std::vector<std::tuple<std::uint64_t, std::uint64_t, int>> ranges;
  double total = 0;
  for (const auto& h : report.hot) {
    ranges.emplace_back(h.start, h.end, h.node);
    total += h.score;
  }
  std::sort(ranges.begin(), ranges.end());
  ASSERT_EQ(ranges.size(), 2u) << "granule " << report.granule_bytes;
  EXPECT_EQ(ranges[0], std::make_tuple(kBase, kBase + 4 * kPage, 0));
  EXPECT_EQ(ranges[1], std::make_tuple(kBase + 4 * kPage, kBase + 8 * kPage, 1));
  EXPECT_NEAR(total, 16, 1e-9);
  EXPECT_TRUE(report.stopped_reason.empty());
}

TEST_F(Fixture, OnEpochGetsEveryPollOfThePrimaryInOrderWithItsEpoch) {
  // A long run (10 epochs) so a loaded machine cannot push a scripted poll
  // past the deadline; only the primary's polls reach the hook.
  options.duration = 1000ms;
  scripts["a"] = {
      {sample_at(kBase, 0), sample_at(kBase + kPage, 0, 3)}, {}, {sample_at(kBase + 2 * kPage, 1)}};
  scripts["b"] = {{sample_at(kBase + 9 * kPage, 0)}};
  std::vector<std::pair<std::uint64_t, std::vector<std::uint64_t>>> calls;
  options.on_epoch = [&](const std::vector<AccessSample>& samples, std::uint64_t epoch) {
    std::vector<std::uint64_t> addrs;
    for (const auto& s : samples) addrs.push_back(s.addr + s.weight);  // address and weight
    calls.emplace_back(epoch, addrs);
  };
  auto report = run({"a", "b"});

  ASSERT_GE(calls.size(), 4u);
  EXPECT_EQ(calls.size(), report.sources.at(0).counters.polls);
  EXPECT_EQ(calls[0], std::make_pair(std::uint64_t{0},
                                     std::vector<std::uint64_t>{kBase + 1, kBase + kPage + 3}));
  EXPECT_EQ(calls[1], std::make_pair(std::uint64_t{1}, std::vector<std::uint64_t>{}));
  EXPECT_EQ(calls[2],
            std::make_pair(std::uint64_t{2}, std::vector<std::uint64_t>{kBase + 2 * kPage + 1}));
  for (std::size_t i = 1; i < calls.size(); ++i) {
    EXPECT_GE(calls[i].first, calls[i - 1].first) << "call " << i;
    if (i >= 3) {
      EXPECT_TRUE(calls[i].second.empty()) << "call " << i;
    }
  }
  // The last poll (the drain after the deadline) is of the partial epoch
  // after the last complete one.
  EXPECT_EQ(calls.back().first, report.epochs);
  // The hook changes nothing else: every sample still reached the report.
  EXPECT_EQ(report.sources.at(0).counters.samples, 3u);
  EXPECT_EQ(report.sources.at(0).kinds.at("hint_fault"), 3u);
}

TEST_F(Fixture, SamplesWithoutACpuOrAResidentPageAreCountedUnresolved) {
  memory.node_of[kBase] = 2;
  scripts["a"] = {{sample_at(kBase, 2), sample_at(kBase + kPage, 2), sample_at(kBase, -1)}};
  auto report = run({"a"});
  EXPECT_DOUBLE_EQ(report.cross_numa.remote(), 1);  // CPU 2 is node 1, the page node 2
  EXPECT_EQ(report.cross_numa.unresolved(), 2u);    // page not resident; CPU unknown
  EXPECT_EQ(report.unresolved_nodes, 1u);
}

TEST_F(Fixture, APrimarySourceThatStopsEndsCollectionWithItsReason) {
  options.duration = 30s;
  scripts["a"] = {{sample_at(kBase, 0)}};
  stop_after["a"] = true;
  auto report = run({"a"});
  // Ended by the stop, not the 30 s deadline: the source was polled once (no
  // final drain of a stopped source) and at most that poll's epoch completed.
  EXPECT_EQ(report.sources.at(0).counters.polls, 1u);
  EXPECT_LE(report.epochs, 1u);
  EXPECT_EQ(report.stopped_reason, "process 42 exited");
  EXPECT_EQ(report.sources.at(0).stopped_reason, "process 42 exited");
  EXPECT_EQ(report.sources.at(0).counters.samples, 1u);
}

TEST_F(Fixture, CancelEndsCollectionEarly) {
  options.duration = 30s;
  std::atomic<bool> cancel{true};
  options.cancel = &cancel;
  auto report = run({"a"});
  // Cancelled before the first epoch: no epoch, only the final drain.
  EXPECT_EQ(report.epochs, 0u);
  EXPECT_EQ(report.sources.at(0).counters.polls, 1u);
  EXPECT_EQ(report.stopped_reason, "interrupted");
}

TEST_F(Fixture, TwoSourcesReportTheirAgreementOverTwoMegabyteBlocks) {
  constexpr std::uint64_t kBlock = 2 << 20;
  // a: blocks 0 and 1; b: blocks 1 and 2 => 1 common of 3.
  scripts["a"] = {{sample_at(kBase, 0), sample_at(kBase + kBlock, 0)}};
  scripts["b"] = {{sample_at(kBase + kBlock + kPage, 0), sample_at(kBase + 2 * kBlock, 0)}};
  auto report = run({"a", "b"});
  ASSERT_TRUE(report.agreement.has_value());
  EXPECT_EQ(report.agreement->primary_blocks, 2u);
  EXPECT_EQ(report.agreement->other_blocks, 2u);
  EXPECT_EQ(report.agreement->common_blocks, 1u);
  EXPECT_DOUBLE_EQ(report.agreement->jaccard, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(report.agreement->primary_covered, 0.5);
  ASSERT_EQ(report.sources.size(), 2u);
  EXPECT_EQ(report.sources[1].counters.samples, 2u);
}

TEST_F(Fixture, ACrossCheckSourceThatCannotStartIsReportedNotFatal) {
  scripts["a"] = {{sample_at(kBase, 0)}};
  fail_start["b"] = true;
  auto report = run({"a", "b"});
  EXPECT_FALSE(report.agreement.has_value());
  EXPECT_EQ(report.sources.at(1).error, "b: not permitted");
  EXPECT_EQ(report.sources.at(0).counters.samples, 1u);
}

TEST_F(Fixture, APrimarySourceThatCannotStartIsAnError) {
  fail_start["a"] = true;
  EXPECT_THROW(run({"a"}), SourceError);
}

std::vector<SourceInfo> probes(std::vector<std::tuple<std::string, bool, std::string>> rows) {
  std::vector<SourceInfo> out;
  for (auto& [name, available, note] : rows) {
    out.push_back({name, {available, available ? "works" : name + " missing"}, note});
  }
  return out;
}

TEST(SourceSelection, AutoTakesTheFirstAvailableSourceAutoMayUse) {
  auto p = probes({{"pmu", false, ""},
                   {"bpf-fault", true, "balancing off"},
                   {"damon", false, ""},
                   {"perf-fault", true, ""}});
  EXPECT_EQ(choose_sources("auto", p), std::vector<std::string>{"perf-fault"});
  EXPECT_EQ(choose_sources("", p), std::vector<std::string>{"perf-fault"});
  // Named, a source auto passes over is still allowed.
  EXPECT_EQ(choose_sources("bpf-fault,perf-fault", p),
            (std::vector<std::string>{"bpf-fault", "perf-fault"}));
}

TEST(SourceSelection, ErrorsNameTheProblem) {
  auto p = probes({{"pmu", false, ""}, {"perf-fault", true, ""}});
  try {
    choose_sources("pebs", p);
    FAIL() << "no error";
  } catch (const UnknownSourceError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown heat source 'pebs'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("bpf-fault"), std::string::npos) << e.what();
  }
  try {
    choose_sources("pmu", p);
    FAIL() << "no error";
  } catch (const SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "heat source pmu is not available: pmu missing");
  }
  EXPECT_THROW(choose_sources("perf-fault,perf-fault", p), UnknownSourceError);
  EXPECT_THROW(choose_sources("pmu,perf-fault,damon", p), UnknownSourceError);
  EXPECT_THROW(choose_sources("auto", probes({{"pmu", false, ""}})), SourceError);
}

TEST(SourceSelection, EveryRegisteredSourceIsProbedInAutoOrder) {
  const auto live = probe_sources(SysRoot("/"));
  std::vector<std::string> names;
  for (const auto& p : live) {
    names.push_back(p.name);
    EXPECT_FALSE(p.availability.reason.empty()) << p.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"pmu", "bpf-fault", "damon", "soft-dirty", "idle-page",
                                             "perf-fault"}));
}

// What `tierctl heat` and tierd's status say `auto` picked, and why.
TEST(SourceSelection, ExplainAutoNamesThePickAndWhyEachEarlierSourceWasPassedOver) {
  const AutoPick first = explain_auto(probes({{"pmu", true, ""}, {"damon", true, ""}}));
  EXPECT_EQ(first.source, "pmu");
  EXPECT_EQ(first.why, "the first source in auto order");
  const AutoPick later = explain_auto(
      probes({{"pmu", false, ""}, {"bpf-fault", true, "balancing off"}, {"damon", true, ""}}));
  EXPECT_EQ(later.source, "damon");
  EXPECT_EQ(later.why,
            "the first usable source in auto order; passed over pmu: pmu missing; "
            "bpf-fault: balancing off");
  try {
    explain_auto(probes({{"pmu", false, ""}, {"bpf-fault", true, "balancing off"}}));
    FAIL() << "no error";
  } catch (const SourceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no heat source is available on this machine:\n  pmu: pmu missing\n  "
              "bpf-fault: balancing off");
  }
}

HeatReport empty_report(std::string source) {
  HeatReport r;
  r.pid = 42;
  r.sources.push_back(SourceRun{std::move(source), {}, {}, {}, {}});
  r.tracked_bytes = 64u << 20;
  r.epochs = 10;
  r.cpu_ns = 5'000'000;
  return r;
}

// A run with 0 samples says which source saw nothing and the likeliest why,
// most specific first; a run with samples says nothing.
TEST(EmptyReason, NamesTheSourceAndTheLikeliestCause) {
  HeatReport sampled = empty_report("damon");
  sampled.sources[0].counters.samples = 1;
  EXPECT_EQ(empty_reason(sampled), "");

  struct Case {
    const char* what;
    std::function<void(HeatReport&)> change;
    std::string source;
    std::string expected_part;
  };
  const std::vector<Case> cases{
      {"every sample dropped", [](HeatReport& r) { r.sources[0].counters.drops = 7; }, "pmu",
       "all 7 of its samples were dropped"},
      {"nothing mapped", [](HeatReport& r) { r.tracked_bytes = 0; }, "damon",
       "no memory mapping a source can watch"},
      {"ended at once",
       [](HeatReport& r) {
         r.epochs = 0;
         r.stopped_reason = "process 42 exited";
       },
       "damon", "ended before its first epoch (process 42 exited)"},
      {"idle process", [](HeatReport& r) { r.cpu_ns = 0; }, "pmu", "not on a CPU once in those"},
      {"pmu blind spot", [](HeatReport&) {}, "pmu", "hit in the caches"},
      {"hint faults", [](HeatReport&) {}, "bpf-fault", "no NUMA hint fault"},
      {"first touches", [](HeatReport&) {}, "perf-fault", "first touches only"},
      {"damon windows", [](HeatReport&) {}, "damon", "aggregation windows"},
      {"writes only", [](HeatReport&) {}, "soft-dirty", "sees writes only"},
      {"idle bits", [](HeatReport&) {}, "idle-page", "between two polls"},
  };
  for (const Case& c : cases) {
    HeatReport r = empty_report(c.source);
    c.change(r);
    const std::string why = empty_reason(r);
    EXPECT_EQ(why.rfind("source " + c.source + " saw no access of pid 42: ", 0), 0u)
        << c.what << ": " << why;
    EXPECT_NE(why.find(c.expected_part), std::string::npos) << c.what << ": " << why;
  }
  // A process that ran says how long, so "idle" and "unseen" differ.
  EXPECT_NE(empty_reason(empty_report("damon")).find("(it ran 5 ms)"), std::string::npos);
  HeatReport unknown = empty_report("damon");
  unknown.cpu_ns.reset();
  EXPECT_EQ(empty_reason(unknown).find("it ran"), std::string::npos);
}

// The collector measures the process's own CPU time over the run (here: this
// test's threads, from the real /proc).
TEST_F(Fixture, AnEmptyRunRecordsTheProcessCpuTimeAndSaysWhyItIsEmpty) {
  scripts["quiet"] = {};
  const HeatReport r = run({"quiet"});
  ASSERT_TRUE(r.cpu_ns.has_value());
  EXPECT_TRUE(process_cpu_ns(root, getpid()).has_value());
  EXPECT_EQ(
      empty_reason(r).rfind("source quiet saw no access of pid " + std::to_string(getpid()), 0), 0u)
      << empty_reason(r);
}

TEST(ProcessCpuTime, SumsEveryThreadAndIsEmptyForAProcessThatIsGone) {
  const auto before = process_cpu_ns(SysRoot(), getpid());
  ASSERT_TRUE(before.has_value());
  volatile std::uint64_t spin = 0;
  for (int i = 0; i < 20'000'000; ++i) spin = spin + static_cast<std::uint64_t>(i);
  const auto after = process_cpu_ns(SysRoot(), getpid());
  ASSERT_TRUE(after.has_value());
  EXPECT_GT(*after, *before);
  EXPECT_FALSE(process_cpu_ns(SysRoot(), 0x3fffffff).has_value());  // above pid_max
}

}  // namespace
}  // namespace tier::heat
