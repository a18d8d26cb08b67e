// tierctl as a user runs it: exit codes (0 ok, 2 usage/input errors), usage
// text, and `topo --json` output that other tools parse.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_support.hpp"

namespace tier {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;

const std::string kTierctl = std::string(TIER_BIN_DIR) + "/tierctl";
constexpr int kUsageExit = 2;

CommandResult tierctl(std::vector<std::string> args) {
  args.insert(args.begin(), kTierctl);
  return test::run_command(args);
}

std::string fixture(const std::string& name) {
  return (fs::path(TIER_FIXTURES) / "sysfs" / name).string();
}

// Parses stdout as one JSON document; fails the test (with the output) if not.
boost::json::object parse_json(const CommandResult& result) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(result.out, ec);
  EXPECT_FALSE(ec) << ec.message() << "\nstdout:\n" << result.out << "\nstderr:\n" << result.err;
  return value.is_object() ? value.as_object() : boost::json::object();
}

std::vector<std::uint64_t> node_ids(const boost::json::object& doc) {
  std::vector<std::uint64_t> ids;
  if (!doc.contains("nodes")) return ids;
  for (const auto& node : doc.at("nodes").as_array())
    ids.push_back(node.at("id").to_number<std::uint64_t>());
  return ids;
}

TEST(Tierctl, BinaryIsBuilt) {
  ASSERT_TRUE(fs::exists(kTierctl)) << kTierctl << " missing: build the tierctl target first";
}

TEST(Tierctl, TopoJsonFromFixtureTree) {
  const CommandResult result = tierctl({"topo", "--root", fixture("2s-cxl-hmat"), "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto doc = parse_json(result);
  EXPECT_EQ(node_ids(doc), (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(doc.at("schema").as_string(), "tier.topology/v1");
  EXPECT_EQ(doc.at("nodes").as_array()[2].at("kind").as_string(), "cxl");
}

TEST(Tierctl, GlobalRootBeforeTheCommandWorksToo) {
  const CommandResult result = tierctl({"--root", fixture("qemu-4node"), "topo", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(node_ids(parse_json(result)), (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

TEST(Tierctl, TierOverrideReachesTheRanking) {
  const CommandResult result =
      tierctl({"topo", "--root", fixture("qemu-4node"), "--tier", "2=0", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto doc = parse_json(result);
  const auto& node2 = doc.at("nodes").as_array().at(2);
  EXPECT_EQ(node2.at("tier").to_number<unsigned>(), 0u);
  EXPECT_EQ(node2.at("tier_source").as_string(), "config");
}

TEST(Tierctl, HumanOutputNamesNodesAndTiers) {
  const CommandResult result = tierctl({"topo", "--root", fixture("1s-nps4-cxl")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("5 NUMA nodes"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("slit"), std::string::npos) << result.out;
}

TEST(Tierctl, UnknownCommandIsUsageError) {
  const CommandResult result = tierctl({"nosuchcommand"});
  EXPECT_EQ(result.exit_code, kUsageExit);
  // CLI11 prints the error and the usage of the failing (sub)command.
  EXPECT_NE(result.err.find("Usage: tierctl"), std::string::npos) << result.err;
}

TEST(Tierctl, UnknownFlagIsUsageError) {
  const CommandResult result = tierctl({"topo", "--bogus-flag"});
  EXPECT_EQ(result.exit_code, kUsageExit);
  EXPECT_NE(result.err.find("bogus-flag"), std::string::npos) << result.err;
}

TEST(Tierctl, MissingRootIsUsageErrorNamingThePath) {
  const CommandResult result = tierctl({"--root", "/nonexistent", "topo"});
  EXPECT_EQ(result.exit_code, kUsageExit);
  EXPECT_NE(result.err.find("/nonexistent"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(Tierctl, MissingXmlIsUsageError) {
  const CommandResult result = tierctl({"--hwloc-xml", "/nonexistent.xml", "topo"});
  EXPECT_EQ(result.exit_code, kUsageExit);
  EXPECT_NE(result.err.find("/nonexistent.xml"), std::string::npos) << result.err;
}

TEST(Tierctl, MalformedTierOverrideIsUsageError) {
  const CommandResult result = tierctl({"topo", "--tier", "x=y"});
  EXPECT_EQ(result.exit_code, kUsageExit);
  EXPECT_NE(result.err.find("x=y"), std::string::npos) << result.err;
}

TEST(Tierctl, TopoJsonFromHwlocXmlListsCxlDevices) {
  const std::string xml =
      (fs::path(TIER_SHARED_TOPOLOGIES) / "hwloc-xml" / "cxlmem+dax.v2.xml").string();
  const CommandResult result = tierctl({"--hwloc-xml", xml, "topo", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto doc = parse_json(result);
  EXPECT_EQ(doc.at("source").at("kind").as_string(), "xml");
  EXPECT_EQ(node_ids(doc), (std::vector<std::uint64_t>{0}));
  std::vector<std::string> cxl;
  for (const auto& device : doc.at("devices").as_array()) {
    if (device.at("type").as_string() == "cxl") cxl.emplace_back(device.at("name").as_string());
  }
  // Four CXL type-3 memory devices (mem0..mem3) behind the CXL root ports.
  EXPECT_EQ(cxl.size(), 4u) << result.out;
}

// tierctl is a front that runs `run` itself and execs tierctl-full for the
// rest (docs/cli.md, "Two binaries"). Copied alone into a directory, the
// front still launches with a binding (it needs neither libtier nor the full
// binary for that) and names the missing tierctl-full for anything else.
TEST(TierctlFront, RunsAloneAndNamesTheMissingFullBinary) {
  test::TempDir dir("tierctl-front");
  const fs::path front = dir.path() / "tierctl";
  fs::copy_file(kTierctl, front);
  const CommandResult run = test::run_command(
      {front.string(), "--socket", (dir.path() / "none.sock").string(), "run", "--membind", "0",
       "--", "sh", "-c", "grep Mems_allowed_list /proc/self/status; exit 7"});
  EXPECT_EQ(run.exit_code, 7) << run.err;
  EXPECT_NE(run.out.find("Mems_allowed_list:\t0"), std::string::npos) << run.out;

  const CommandResult topo = test::run_command({front.string(), "topo"});
  EXPECT_EQ(topo.exit_code, 1);
  EXPECT_NE(topo.err.find((dir.path() / "tierctl-full").string()), std::string::npos) << topo.err;
}

// A global option's value that reads like a command does not choose `run`.
TEST(TierctlFront, AGlobalOptionValueIsNotTheCommand) {
  const CommandResult result =
      tierctl({"--socket", "run", "topo", "--root", fixture("qemu-4node"), "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(node_ids(parse_json(result)), (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace tier
