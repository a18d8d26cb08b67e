// tierctl stats / migrate run as a real binary against this machine.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>
#include "test_support.hpp"

namespace tier {
namespace {

const std::string kTierctl = std::string(TIER_BIN_DIR) + "/tierctl";
const std::string kSelf = std::to_string(getpid());

TEST(StatsCli, PidJsonKeys) {
  auto result = test::run_command({kTierctl, "stats", "--pid", kSelf, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = boost::json::parse(result.out).as_object();
  EXPECT_EQ(doc.at("pid").as_int64(), getpid());
  ASSERT_FALSE(doc.at("nodes").as_array().empty());
  std::uint64_t total = 0;
  for (const auto& entry : doc.at("nodes").as_array()) {
    const auto& node = entry.as_object();
    for (const char* key : {"node", "bytes", "pages_4k", "huge_bytes"}) {
      EXPECT_TRUE(node.contains(key)) << key;
    }
    EXPECT_EQ(node.at("bytes").to_number<std::uint64_t>(),
              node.at("pages_4k").to_number<std::uint64_t>() * 4096 +
                  node.at("huge_bytes").to_number<std::uint64_t>());
    total += node.at("bytes").to_number<std::uint64_t>();
  }
  ASSERT_FALSE(doc.at("tiers").as_array().empty());
  std::uint64_t tier_total = 0;
  for (const auto& entry : doc.at("tiers").as_array()) {
    EXPECT_TRUE(entry.as_object().contains("tier"));
    tier_total += entry.as_object().at("bytes").to_number<std::uint64_t>();
  }
  EXPECT_EQ(total, tier_total);
}

TEST(StatsCli, WatchEndsCleanlyOnSigint) {
  test::Process watch({kTierctl, "stats", "--watch", "0.2", "--interval", "0.05", "--json"});
  // Wait for the first refresh, then interrupt as a user's Ctrl-C would.
  for (int i = 0; i < 200 && watch.out_so_far().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  watch.signal(SIGINT);
  auto result = watch.wait();
  EXPECT_EQ(result.exit_code, 0) << result.err;
  ASSERT_FALSE(result.out.empty());
  // Every refresh is one whole JSON document on its own line.
  std::istringstream lines(result.out);
  std::string line;
  int documents = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    EXPECT_NO_THROW(boost::json::parse(line)) << line;
    ++documents;
  }
  EXPECT_GE(documents, 1);
}

TEST(StatsCli, SystemJson) {
  auto result = test::run_command({kTierctl, "stats", "--interval", "0.1", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = boost::json::parse(result.out).as_object();
  ASSERT_FALSE(doc.at("nodes").as_array().empty());
  EXPECT_TRUE(doc.at("nodes").as_array()[0].as_object().contains("free_bytes"));
  EXPECT_TRUE(doc.at("rates").as_object().contains("promote_pages_per_s"));
  ASSERT_FALSE(doc.at("tiers").as_array().empty());
}

TEST(StatsCli, NameMatchesThisTest) {
  auto comm = test::read_text_file("/proc/self/comm");
  comm.erase(comm.find_last_not_of("\n") + 1);
  auto result = test::run_command({kTierctl, "stats", "--name", "^" + comm + "$", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = boost::json::parse(result.out).as_object();
  bool found = false;
  for (const auto& p : doc.at("processes").as_array()) {
    found = found || p.as_object().at("pid").as_int64() == getpid();
  }
  EXPECT_TRUE(found);
}

TEST(StatsCli, BadInput) {
  EXPECT_EQ(test::run_command({kTierctl, "stats", "--pid", "999999999"}).exit_code, 2);
  EXPECT_EQ(test::run_command({kTierctl, "stats", "--interval", "0"}).exit_code, 2);
  EXPECT_EQ(test::run_command({kTierctl, "stats", "--name", "("}).exit_code, 2);
}

TEST(MigrateCli, OwnPagesToNodeZeroJson) {
  auto result = test::run_command({kTierctl, "migrate", "--pid", kSelf, "--to", "0", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = boost::json::parse(result.out).as_object();
  for (const char* key : {"requested_pages", "moved_pages", "already_there", "failed", "seconds",
                          "mbps", "bytes_moved", "stop_reason"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_GT(doc.at("requested_pages").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(doc.at("moved_pages").to_number<std::uint64_t>(), 0u);
  EXPECT_EQ(doc.at("stop_reason").as_string(), "completed");
  std::uint64_t failed = 0;
  for (const auto& [reason, count] : doc.at("failed").as_object()) {
    failed += count.to_number<std::uint64_t>();
  }
  // Pages may come and go between the scan and the move (not_present), but
  // every requested page is accounted for.
  EXPECT_EQ(doc.at("already_there").to_number<std::uint64_t>() + failed,
            doc.at("requested_pages").to_number<std::uint64_t>());
}

TEST(MigrateCli, RangeAndRateAccepted) {
  auto result = test::run_command({kTierctl, "migrate", "--pid", kSelf, "--to", "0", "--from", "0",
                                   "--rate", "100", "--range", "0x0-0x7fffffffffff"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("already there"), std::string::npos) << result.out;
}

TEST(MigrateCli, BadInputExitsTwo) {
  const std::vector<std::vector<std::string>> cases{
      {"--pid", "999999999", "--to", "0"},
      {"--pid", kSelf, "--to", "7"},
      {"--pid", kSelf, "--to", "0", "--rate", "0"},
      {"--pid", kSelf, "--to", "0", "--rate", "-5"},
      {"--pid", kSelf, "--to", "0", "--range", "zz"},
      {"--pid", kSelf, "--to", "0", "--range", "0x2000-0x1000"},
      {"--pid", kSelf, "--to", "0", "--from", "9"},
      {"--pid", "2", "--to", "0"},  // kthreadd: a kernel thread
      {"--to", "0"},
  };
  for (const auto& args : cases) {
    std::vector<std::string> argv{kTierctl, "migrate"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = test::run_command(argv);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(result.exit_code, 2) << joined << result.err;
    EXPECT_FALSE(result.err.empty()) << joined;
  }
}

}  // namespace
}  // namespace tier
