// `tierctl heat` as a user runs it: argument errors (exit 2 with a message
// that says what to do), the source list, and - as root on this machine -
// the eBPF page-fault and perf software-fault sources finding the hot set
// of the `hotset` workload from NUMA hint faults (kernel.numa_balancing is
// switched on for the test and restored; the tests hold its CTest lock).
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "test_support.hpp"

namespace tier {
namespace {

using test::CommandResult;
using namespace std::chrono_literals;

const std::string kBin = TIER_BIN_DIR;

CommandResult tierctl(std::vector<std::string> args) {
  args.insert(args.begin(), kBin + "/tierctl");
  return test::run_command(args);
}

boost::json::object parse_json(const CommandResult& result) {
  boost::json::error_code ec;
  auto value = boost::json::parse(result.out, ec);
  if (ec || !value.is_object()) {
    ADD_FAILURE() << "not a JSON object: " << result.out << "\nstderr: " << result.err;
    return {};
  }
  return value.as_object();
}

TEST(HeatCli, ArgumentErrorsExitTwoAndSayWhy) {
  auto r = tierctl({"heat"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--pid is required"), std::string::npos) << r.err;

  r = tierctl({"heat", "--pid", std::to_string(getpid()), "--source", "pebs"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown heat source 'pebs' (sources: pmu, bpf-fault, damon, soft-dirty, "
                       "idle-page, perf-fault, or auto)"),
            std::string::npos)
      << r.err;

  r = tierctl({"heat", "--pid", "999999999", "--source", "perf-fault"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such process"), std::string::npos) << r.err;

  r = tierctl({"heat", "--pid", "2", "--source", "perf-fault"});  // kthreadd
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kernel thread"), std::string::npos) << r.err;

  r = tierctl({"heat", "--pid", std::to_string(getpid()), "--duration", "0"});
  EXPECT_EQ(r.exit_code, 2);
  r = tierctl({"heat", "--pid", std::to_string(getpid()), "--decay", "1.5"});
  EXPECT_EQ(r.exit_code, 2);
  r = tierctl({"heat", "--pid", "notanumber"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE((r.out + r.err).find("--list-sources"), std::string::npos) << "usage printed";
}

TEST(HeatCli, AnUnavailableSourceAskedByNameIsAFailureWithItsReason) {
  auto r = tierctl({"heat", "--pid", std::to_string(getpid()), "--source", "pmu"});
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a PMU";
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("heat source pmu is not available: "), std::string::npos) << r.err;
}

TEST(HeatCli, ListSourcesNamesEverySourceInAutoOrderWithAReason) {
  auto r = tierctl({"heat", "--list-sources", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = parse_json(r);
  std::vector<std::string> names;
  for (const auto& s : doc.at("sources").as_array()) {
    names.emplace_back(s.at("name").as_string().c_str());
    EXPECT_FALSE(s.at("reason").as_string().empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"pmu", "bpf-fault", "damon", "soft-dirty", "idle-page",
                                             "perf-fault"}));
  // This machine (docs/environment): no PMU, no DAMON vaddr, no soft-dirty, no idle page.
  if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0) {
    EXPECT_FALSE(doc.at("sources").as_array()[0].at("available").as_bool());
  }
}

TEST(HeatCli, WithoutRootBpfIsNotPermittedAndSaysSo) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to nobody";
  auto r = test::run_command({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                              kBin + "/tierctl", "heat", "--list-sources", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = parse_json(r);
  const auto& bpf = doc.at("sources").as_array()[1].as_object();
  EXPECT_FALSE(bpf.at("available").as_bool());
  EXPECT_NE(std::string(bpf.at("reason").as_string().c_str()).find("not permitted"),
            std::string::npos)
      << bpf;
}

// hotset's 64 MiB buffer with an 8 MiB hot set, read by two threads (the
// balancing scan leaves a single-threaded process alone on a one-node
// machine); NUMA balancing turns its accesses into hint faults.
class HotsetUnderBalancing : public ::testing::Test {
 protected:
  static constexpr std::uint64_t kSize = 64 << 20, kHot = 8 << 20, kHotOffset = 16 << 20;

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (BPF, perf on another process, sysctl)";
    if (test::kAddressSanitizer) {
      GTEST_SKIP() << "hotset built with ASan: its shadow reservation keeps the NUMA scanner "
                      "from reaching the buffer in time; the normal build runs these tests";
    }
    balancing_ = std::make_unique<test::ScopedSysctl>("/proc/sys/kernel/numa_balancing", 1);
    if (!balancing_->ok()) GTEST_SKIP() << "cannot set kernel.numa_balancing";
    hotset_ = std::make_unique<test::Process>(std::vector<std::string>{
        kBin + "/hotset", "--size", "64M", "--hot", "8M", "--hot-offset", "16M", "--node", "0",
        "--threads", "2", "--duration", "60", "--policy", "bind-balancing"});
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto out = hotset_->out_so_far();
      if (auto line_end = out.find('\n'); line_end != std::string::npos) {
        auto ready = boost::json::parse(out.substr(0, line_end)).as_object();
        base_ = ready.at("base").to_number<std::uint64_t>();
        return;
      }
      std::this_thread::sleep_for(50ms);
    }
    FAIL() << "hotset printed no ready line in 30 s";
  }

  // Precision and recall, in bytes, of the reported hot ranges inside the buffer.
  std::pair<double, double> score(const boost::json::object& doc) const {
    const std::uint64_t hot_start = base_ + kHotOffset, hot_end = hot_start + kHot;
    std::uint64_t reported = 0, correct = 0;
    for (const auto& h : doc.at("hot").as_array()) {
      std::uint64_t start = std::max(h.at("start").to_number<std::uint64_t>(), base_);
      std::uint64_t end = std::min(h.at("end").to_number<std::uint64_t>(), base_ + kSize);
      if (start >= end) continue;  // outside the buffer: the truth says nothing there
      reported += end - start;
      const std::uint64_t s = std::max(start, hot_start), e = std::min(end, hot_end);
      if (s < e) correct += e - s;
    }
    const double precision = reported == 0 ? 0 : double(correct) / double(reported);
    return {precision, double(correct) / double(kHot)};
  }

  void expect_finds_hot_set(const std::string& source) {
    auto r = tierctl({"heat", "--pid", std::to_string(hotset_->pid()), "--source", source,
                      "--duration", "8", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = parse_json(r);
    EXPECT_EQ(doc.at("source").as_string(), source);
    EXPECT_GT(doc.at("samples").to_number<std::uint64_t>(), 0u);
    EXPECT_EQ(doc.at("stopped_reason").as_string(), "");
    auto [precision, recall] = score(doc);
    std::cout << source << ": samples " << doc.at("samples") << ", drops " << doc.at("drops")
              << ", kinds " << doc.at("runs").as_array()[0].at("kinds") << ", precision "
              << precision << ", recall " << recall << "\n";
    // Only the hot set is accessed after the ready line: whatever faults in
    // the buffer now is hot. Recall depends on how far the scan got.
    EXPECT_GE(precision, 0.9);
    EXPECT_GT(recall, 0.0);
  }

  std::unique_ptr<test::ScopedSysctl> balancing_;
  std::unique_ptr<test::Process> hotset_;
  std::uint64_t base_ = 0;
};

TEST_F(HotsetUnderBalancing, BpfFaultSourceFindsTheHotSet) {
  expect_finds_hot_set("bpf-fault");
}

TEST_F(HotsetUnderBalancing, PerfFaultSourceFindsTheHotSet) {
  expect_finds_hot_set("perf-fault");
}

TEST_F(HotsetUnderBalancing, TheProcessExitingEndsTheRunWithItsReason) {
  auto heat = test::Process({kBin + "/tierctl", "heat", "--pid", std::to_string(hotset_->pid()),
                             "--source", "bpf-fault", "--duration", "30", "--json"});
  std::this_thread::sleep_for(2s);
  hotset_->signal(SIGKILL);
  hotset_->wait();
  const auto begin = std::chrono::steady_clock::now();
  auto r = heat.wait();
  EXPECT_LT(std::chrono::steady_clock::now() - begin, 10s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = parse_json(r);
  EXPECT_NE(std::string(doc.at("stopped_reason").as_string().c_str()).find("exited"),
            std::string::npos)
      << doc.at("stopped_reason");
}

}  // namespace
}  // namespace tier
