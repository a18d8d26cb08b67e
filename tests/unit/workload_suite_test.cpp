// The workload suite's shared part (workloads/suite/): the latency
// histogram's buckets and quantiles against exact values, the shared flags
// through the value grammar (each refusal names the flag), the report's
// interval and final lines as a reader parses them, and a placed buffer's
// pages on the node asked for (node 0: this machine's only node).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "latency_histogram.hpp"
#include "placement.hpp"
#include "report.hpp"
#include "suite_options.hpp"
#include "tier/values/values.hpp"
#include "zipf.hpp"

namespace tier_workloads {
namespace {

TEST(LatencyHistogram, EveryValueLandsInABucketWithin1of16AboveIt) {
  for (std::uint64_t v : {0ull, 1ull, 15ull, 16ull, 17ull, 31ull, 32ull, 33ull, 1000ull,
                          123456789ull, (1ull << 40) + 12345, ~0ull}) {
    const std::uint64_t upper = LatencyHistogram::bucket_upper(LatencyHistogram::bucket_of(v));
    EXPECT_GE(upper, v) << v;
    EXPECT_LE(static_cast<double>(upper - v), static_cast<double>(v) / 16.0 + 1.0) << v;
  }
}

TEST(LatencyHistogram, QuantilesFollowTheRecordedValues) {
  LatencyHistogram h;
  EXPECT_EQ(h.quantile_ns(0.5), 0u);
  std::vector<std::uint64_t> values;
  for (std::uint64_t i = 1; i <= 1000; ++i) values.push_back(i * 1000);  // 1..1000 µs
  std::shuffle(values.begin(), values.end(), std::mt19937_64(7));
  for (auto v : values) h.record(v);
  EXPECT_EQ(h.count(), 1000u);
  // The exact p50 is 500 µs and p99 990 µs; a bucket reports at most 1/16 above.
  EXPECT_GE(h.quantile_ns(0.5), 500'000u);
  EXPECT_LE(h.quantile_ns(0.5), 500'000u + 500'000u / 16);
  EXPECT_GE(h.quantile_ns(0.99), 990'000u);
  EXPECT_LE(h.quantile_ns(0.99), 990'000u + 990'000u / 16);
  EXPECT_EQ(h.quantile_ns(1.0), 1'000'000u);  // the maximum, not its bucket's bound
}

TEST(LatencyHistogram, MergingAddsCounts) {
  LatencyHistogram a, b;
  for (int i = 0; i < 90; ++i) a.record(100);
  for (int i = 0; i < 10; ++i) b.record(100'000);
  a.merge(b);
  EXPECT_EQ(a.count(), 100u);
  EXPECT_LE(a.quantile_ns(0.9), 100u + 100u / 16);
  EXPECT_GE(a.quantile_ns(0.91), 100'000u);
  EXPECT_EQ(a.max_ns(), 100'000u);
}

TEST(Zipf, RankZeroIsTheMostLikelyAndEveryDrawIsInRange) {
  Zipf z(1000, 0.99);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<int> hits(1000);
  for (int i = 0; i < 100'000; ++i) {
    const std::size_t r = z.draw(u(rng));
    ASSERT_LT(r, 1000u);
    ++hits[r];
  }
  EXPECT_GT(hits[0], hits[1]);
  EXPECT_GT(hits[1], hits[10]);
  EXPECT_GT(hits[10], hits[500]);
}

/// The what() of the ValueError parse_suite_flag throws ("" if it accepts).
std::string refusal(std::string_view flag, std::string_view value) {
  SuiteOptions o;
  try {
    parse_suite_flag(flag, value, o);
  } catch (const tier::values::ValueError& e) {
    return e.what();
  }
  return "";
}

TEST(SuiteOptions, SharedFlagsParseThroughTheValueGrammar) {
  SuiteOptions o;
  EXPECT_TRUE(parse_suite_flag("--node", "0", o));
  EXPECT_TRUE(parse_suite_flag("--policy", "bind-balancing", o));
  EXPECT_TRUE(parse_suite_flag("--threads", "4", o));
  EXPECT_TRUE(parse_suite_flag("--duration", "1500ms", o));
  EXPECT_TRUE(parse_suite_flag("--report-ms", "250", o));
  EXPECT_TRUE(parse_suite_flag("--cpus", "0", o));
  EXPECT_TRUE(parse_suite_flag("--seed", "42", o));
  EXPECT_TRUE(parse_suite_flag("--report", "/tmp/r.jsonl", o));
  EXPECT_EQ(o.node, 0);
  EXPECT_EQ(o.policy, Placement::bind_balancing);
  EXPECT_EQ(o.threads, 4u);
  EXPECT_DOUBLE_EQ(o.duration_s, 1.5);
  EXPECT_DOUBLE_EQ(o.report_ms, 250);
  EXPECT_EQ(o.cpus.to_string(), "0");
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.report, "/tmp/r.jsonl");
  EXPECT_FALSE(parse_suite_flag("--size", "1G", o));    // a program's own flag
  EXPECT_TRUE(parse_suite_flag("--duration", "3", o));  // bare seconds
  EXPECT_DOUBLE_EQ(o.duration_s, 3);
}

TEST(SuiteOptions, EveryRefusalNamesTheFlagAndTheText) {
  struct Case {
    const char* flag;
    const char* value;
  };
  for (const Case& c :
       {Case{"--node", ""}, Case{"--node", "4096"}, Case{"--node", "-1"}, Case{"--policy", ""},
        Case{"--policy", "interleave"}, Case{"--threads", "0"}, Case{"--threads", "257"},
        Case{"--duration", ""}, Case{"--duration", "0"}, Case{"--duration", "2 s"},
        Case{"--report-ms", "10"}, Case{"--cpus", ""}, Case{"--cpus", "4095"}, Case{"--report", ""},
        Case{"--start-file", ""}, Case{"--seed", "x"}}) {
    const std::string why = refusal(c.flag, c.value);
    EXPECT_NE(why.find(c.flag), std::string::npos) << c.flag << " '" << c.value << "': " << why;
    EXPECT_NE(why.find(std::string("'") + c.value + "'"), std::string::npos) << why;
  }
}

class ReportTest : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }
  std::vector<boost::json::object> lines() const {
    std::vector<boost::json::object> out;
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);)
      out.push_back(boost::json::parse(line).as_object());
    return out;
  }
  std::string path_ = "/tmp/workload_suite_test." + std::to_string(getpid()) + ".jsonl";
};

TEST_F(ReportTest, IntervalAndFinalLinesReadBack) {
  {
    Report report(path_, "gups", "updates");
    LatencyHistogram h;
    for (int i = 0; i < 100; ++i) h.record(10'000);  // 10 µs
    report.interval(1.0, 5000, 0.5, &h);
    report.interval(2.0, 7000, 1.0, nullptr);
    Report::Final f;
    f.ops = 12000;
    f.seconds = 2.0;
    f.latency = &h;
    f.verified = 4096;
    f.verified_unit = "words";
    f.bad = 0;
    f.extra["size"] = 1 << 20;
    testing::internal::CaptureStdout();
    report.final(f);
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_EQ(boost::json::parse(out).as_object().at("workload").as_string(), "gups");
  }
  auto l = lines();
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].at("ops").to_number<std::uint64_t>(), 5000u);
  EXPECT_DOUBLE_EQ(l[0].at("ops_per_s").as_double(), 10000.0);
  EXPECT_GE(l[0].at("p50_us").as_double(), 10.0);
  EXPECT_LE(l[0].at("p99_us").as_double(), 10.0 + 10.0 / 16);
  EXPECT_FALSE(l[1].contains("p50_us"));  // no requests in that interval
  EXPECT_TRUE(l[2].at("final").as_bool());
  EXPECT_EQ(l[2].at("unit").as_string(), "updates");
  EXPECT_DOUBLE_EQ(l[2].at("ops_per_s").as_double(), 6000.0);
  EXPECT_EQ(l[2].at("verified_unit").as_string(), "words");
  EXPECT_TRUE(l[2].contains("size"));
  EXPECT_TRUE(l[2].contains("p99_us"));
}

TEST(PlacedBuffer, FirstTouchedOnTheNodeAskedFor) {
  std::size_t filled = 0;
  PlacedBuffer buffer(3 * 4096 + 1, 0, Placement::first_touch, [&filled](char* p, std::size_t n) {
    std::fill(p, p + n, 'x');
    filled += n;
  });
  EXPECT_EQ(buffer.size(), 4u * 4096);  // rounded up to pages
  EXPECT_EQ(filled, buffer.size());
  auto nodes = buffer.nodes();
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes.begin()->first, 0);
  EXPECT_EQ(nodes.begin()->second, 4u);
}

TEST(PlacedBuffer, ANodeThatCannotTakeItIsAnErrorNamingIt) {
  // Node 1023 exists nowhere: mbind refuses it, and the error says which node.
  try {
    PlacedBuffer buffer(4096, 1023, Placement::bind, [](char*, std::size_t) {});
    FAIL() << "placed on node 1023";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("node 1023"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tier_workloads
