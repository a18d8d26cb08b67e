// The real libtierpreload.so under LD_PRELOAD in child processes: every
// exported symbol through preload_probe, the start-up warning and plain
// glibc behaviour on invalid values, the statistics file, the stress run,
// and real programs giving identical output with and without the library.
#include <gtest/gtest.h>
#include <numaif.h>

#include <boost/json.hpp>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

using tier::test::CommandResult;

// libtierpreload.so and the programs run under it here are never sanitized
// (ASan must be a process's first malloc; preload/CMakeLists.txt): in the
// sanitized build these tests would repeat the release build's run of the
// same code (over a minute, mostly the real programs), so make test runs
// them once, there. The library's logic runs sanitized in preload_core_test.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif
constexpr const char* kReleaseOnly =
    "nothing here is sanitized: the release build's unit tests run it (make test runs both)";

// env KEY=VALUE... PROGRAM ARGS (env(1) keeps the test's own environment clean).
CommandResult run_preloaded(std::vector<std::string> env, const std::vector<std::string>& argv) {
  std::vector<std::string> full{"env", std::string("LD_PRELOAD=") + TIER_PRELOAD_LIB};
  full.insert(full.end(), env.begin(), env.end());
  full.insert(full.end(), argv.begin(), argv.end());
  return tier::test::run_command(full);
}

struct ProbeCase {
  const char* policy;
  const char* strict;
  int mode;
};

class PreloadProbe : public ::testing::TestWithParam<ProbeCase> {};

TEST_P(PreloadProbe, EverySymbolThroughLdPreload) {
  if (kSanitizedBuild) GTEST_SKIP() << kReleaseOnly;
  const ProbeCase& c = GetParam();
  CommandResult r = run_preloaded(
      {std::string("TIER_PRELOAD_POLICY=") + c.policy, "TIER_PRELOAD_THRESHOLD=64K",
       std::string("TIER_PRELOAD_STRICT=") + c.strict,
       "TIER_PRELOAD_SOCKET=/nonexistent/tierd.sock"},
      {TIER_PRELOAD_PROBE, "1048576", std::to_string(c.mode), "0", "--expect-placed"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "preload_probe: 0 failures, cfree found\n");
}

INSTANTIATE_TEST_SUITE_P(Policies, PreloadProbe,
                         ::testing::Values(ProbeCase{"nodes:0", "advisory", 5},
                                           ProbeCase{"nodes:0", "strict", MPOL_BIND},
                                           ProbeCase{"local", "advisory", 4},
                                           ProbeCase{"slow", "advisory", MPOL_PREFERRED},
                                           ProbeCase{"interleave:0", "advisory", MPOL_INTERLEAVE},
                                           ProbeCase{"weighted:0=2", "strict", MPOL_BIND},
                                           ProbeCase{"ratio:1:1", "advisory", MPOL_PREFERRED},
                                           ProbeCase{"auto", "advisory", 4}),
                         [](const auto& param_info) {
                           return tier::test::test_name_from(std::string(param_info.param.policy) +
                                                             "_" + param_info.param.strict);
                         });

TEST(PreloadProbe, InvalidValuesWarnOnceThenPlainGlibc) {
  if (kSanitizedBuild) GTEST_SKIP() << kReleaseOnly;
  const std::vector<std::pair<std::string, std::string>> cases{
      {"TIER_PRELOAD_POLICY=bogus", "TIER_PRELOAD_POLICY='bogus': expected"},
      {"TIER_PRELOAD_THRESHOLD=12Q", "TIER_PRELOAD_THRESHOLD='12Q': expected"},
      {"TIER_PRELOAD_STRICT=maybe", "TIER_PRELOAD_STRICT='maybe': expected"},
      {"TIER_PRELOAD_POLICY=interleave:0,9", "node 9 has no memory"}};
  for (const auto& [setting, message] : cases) {
    std::vector<std::string> env{"TIER_PRELOAD_POLICY=nodes:0", setting};
    CommandResult r = run_preloaded(
        env, {TIER_PRELOAD_PROBE, "1048576", std::to_string(MPOL_DEFAULT), "0", "--expect-plain"});
    EXPECT_EQ(r.exit_code, 0) << setting << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("tierpreload: warning: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("placement off (plain glibc)"), std::string::npos) << r.err;
  }
}

TEST(PreloadProbe, StatisticsFileCountsPlacedBytesPerNode) {
  if (kSanitizedBuild) GTEST_SKIP() << kReleaseOnly;
  tier::test::TempDir dir("preload-stats");
  const std::string file = (dir.path() / "stats.%p.json").string();
  CommandResult r = run_preloaded(
      {"TIER_PRELOAD_POLICY=nodes:0", "TIER_PRELOAD_THRESHOLD=64K", "TIER_PRELOAD_STATS=" + file},
      {TIER_PRELOAD_PROBE, "1048576", "-1", "-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string json;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    json = tier::test::read_text_file(entry.path());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      json, m, std::regex(R"("nodes":\{"0":\{"bytes":(\d+),"count":(\d+),"allocations":(\d+),)")))
      << json;
  EXPECT_EQ(m[1], "0") << "every placed byte was freed: " << json;
  EXPECT_EQ(m[2], "0") << json;
  EXPECT_GT(std::stoull(m[3]), 50u) << json;
}

TEST(PreloadStress, SixteenThreadsForkingUnderLdPreload) {
  if (kSanitizedBuild) GTEST_SKIP() << kReleaseOnly;
  const char* seconds = std::getenv("TIER_STRESS_SECONDS");
  CommandResult r = run_preloaded({"TIER_PRELOAD_POLICY=nodes:0"},
                                  {TIER_PRELOAD_STRESS, seconds != nullptr ? seconds : "10", "16"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" 0 bad children, 0 corrupt"), std::string::npos) << r.out;
}

TEST(PreloadRealPrograms, IdenticalOutputWithAndWithoutTheLibrary) {
  if (kSanitizedBuild) GTEST_SKIP() << kReleaseOnly;
  CommandResult r = tier::test::run_command(
      {std::string(TIER_PRELOAD_SCRIPTS) + "/real_programs.sh", TIER_PRELOAD_LIB});
  if (r.exit_code == 77) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// A process holding 64 MiB placed in 4 blocks, seen from outside.
TEST(PreloadTierctlStats, PidShowsBytesPlacedPerNode) {
  tier::test::Process hold({"env", std::string("LD_PRELOAD=") + TIER_PRELOAD_LIB,
                            "TIER_PRELOAD_POLICY=nodes:0", TIER_PRELOAD_HOLD, "64", "4"});
  for (int i = 0; i < 200 && hold.out_so_far().find("\"pid\"") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_NE(hold.out_so_far().find("\"pid\""), std::string::npos) << hold.err_so_far();
  const std::string pid = std::to_string(hold.pid());
  CommandResult json = tier::test::run_command({TIER_TIERCTL, "stats", "--pid", pid, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = boost::json::parse(json.out).as_object();
  ASSERT_TRUE(doc.contains("preload")) << json.out;
  const auto& preload = doc.at("preload").as_object();
  EXPECT_EQ(preload.at("policy").as_string(), "nodes:0");
  const auto& node0 = preload.at("nodes").as_array().at(0).as_object();
  EXPECT_EQ(node0.at("node").as_int64(), 0);
  EXPECT_GE(node0.at("bytes").as_int64(), 64 << 20);
  EXPECT_EQ(node0.at("count").as_int64(), 4);
  CommandResult text = tier::test::run_command({TIER_TIERCTL, "stats", "--pid", pid});
  EXPECT_NE(text.out.find("libtierpreload (policy nodes:0): placed now\n    node 0: 64"),
            std::string::npos)
      << text.out;
  hold.signal(SIGTERM);
  CommandResult done = hold.wait();
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("\"bad_pages\":0"), std::string::npos) << done.out;
  // Without the library: no section.
  CommandResult self =
      tier::test::run_command({TIER_TIERCTL, "stats", "--pid", std::to_string(getpid()), "--json"});
  EXPECT_EQ(self.out.find("\"preload\":"), std::string::npos) << self.out;
}

}  // namespace
