// tierctl's daemon commands (status, workloads, policy, pause, resume,
// reload) against a scripted tierd: the project's own ControlServer on a
// thread, its handlers returning canned results shaped like docs/api.md and
// recording the params they received. Checks the real tierctl binary's human
// output, --json passthrough, the params it sends, error replies (with the
// `permission` hint), "tierd is not running" and usage errors. Runs against
// the real tierd belong to the daemon's end-to-end tests.
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "scripted_tierd.hpp"
#include "test_support.hpp"
#include "tier/protocol/control_protocol.hpp"

namespace tier::test {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kTierctl = std::string(TIER_BIN_DIR) + "/tierctl";

// ---- canned results, shaped exactly like the examples in docs/api.md ------

const json::value kStatus = json::parse(R"({
  "daemon": "tierd", "version": "0.1.0", "pid": 4242, "state": "running",
  "uptime_s": 12.5, "paused": false,
  "config": {"origin": "/etc/tier/tierd.toml", "socket": "/run/tier/tierd.sock",
             "state": "/var/lib/tier/state.json", "metrics": "127.0.0.1:9464",
             "log_level": "info", "epoch_ms": 1000, "tick_ms": 1000},
  "policy": {"name": "static", "ticks": 12, "last_tick_ms": 0.04, "planned_moves": 0},
  "epochs": 12,
  "workloads": {"count": 3, "online": 1, "offline": 1, "default": 1, "dropped_total": 7},
  "nodes": [{"id": 0, "tier": 0, "total_bytes": 8589934592, "free_bytes": 4294967296},
            {"id": 2, "tier": 1, "total_bytes": 17179869184, "free_bytes": 16106127360}],
  "kernel": {"numa_balancing": {"original": "0", "applied": "2"}},
  "last_reload": {"ok": true, "message": "configuration reloaded", "unix_s": 1796000000},
  "state_file": {"path": "/var/lib/tier/state.json", "found": "loaded", "problem": "",
                 "kept_as": "", "recovered_workloads": 3, "writes": 14, "write_failures": 2,
                 "last_write_error": "cannot write state file /var/lib/tier/state.json: write /var/lib/tier/state.json.tmp.4242: No space left on device",
                 "last_write_error_unix_s": 1796000000}})");

const json::value kWorkloads = json::parse(R"({
  "workloads": [
    {"id": "pid:1234", "name": "redis-server", "source": "api", "pid": 1234, "cgroup": "",
     "class": "online", "priority": 10, "pool": "shared", "quota": "8G",
     "registered_unix_s": 1796000000,
     "resident_bytes_by_node": {"0": 3221225472, "2": 1073741824}, "fast_tier_share": 0.75},
    {"id": "cgroup:/batch.slice", "name": "batch", "source": "cgroup", "pid": 0,
     "cgroup": "/batch.slice", "class": "offline", "priority": 0, "pool": "", "quota": "25%",
     "registered_unix_s": 1796000100},
    {"id": "found:77", "name": "java", "source": "discovered", "pid": 77, "cgroup": "",
     "class": "offline", "priority": 0, "pool": "shared", "quota": "",
     "registered_unix_s": 1796000150,
     "found": "anonymous memory 412 MiB (found at 64 MiB); class offline: nice 10"}],
  "dropped": [{"workload": {"id": "pid:99", "name": "bash", "source": "rule", "pid": 99,
                            "cgroup": "", "class": "default", "priority": 0, "pool": "",
                            "quota": "", "registered_unix_s": 1795999000},
               "reason": "process exited", "at_unix_s": 1796000200}]})");

const json::value kRegistered = json::parse(R"({"workload":
  {"id": "pid:42", "name": "worker", "source": "api", "pid": 42, "cgroup": "",
   "class": "online", "priority": 0, "pool": "shared", "quota": "25%",
   "registered_unix_s": 1796000300}})");

const json::value kRemoved = json::parse(R"({"removed":
  {"id": "pid:1234", "name": "redis-server", "source": "api", "pid": 1234, "cgroup": "",
   "class": "online", "priority": 10, "pool": "shared", "quota": "8G",
   "registered_unix_s": 1796000000}})");

const json::value kPolicy = json::parse(R"({
  "name": "static", "params": {},
  "available": [
    {"name": "static", "description": "Pin workloads to their pools; never migrate pages",
     "params": []},
    {"name": "hot-promote", "description": "Promote hot pages of online workloads",
     "params": [{"name": "max_mbps", "type": "int", "default": 100,
                 "description": "migration rate limit"},
                "dry_run"]}]})");

const json::value kPolicySet = json::parse(R"({
  "name": "hot-promote", "params": {"max_mbps": 200, "dry_run": true},
  "available": [
    {"name": "static", "description": "Pin workloads to their pools; never migrate pages",
     "params": []},
    {"name": "hot-promote", "description": "Promote hot pages of online workloads",
     "params": ["max_mbps", "dry_run"]}]})");

const json::value kReload = json::parse(
    R"({"reloaded": true, "changes": ["daemon.log_level: info -> debug", "policy.tick_ms: 1000 -> 500"]})");

// ---- the scripted daemons -------------------------------------------------

// ---- helpers ---------------------------------------------------------------

class TierctlDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_.reply("status", kStatus);
    daemon_.reply("workloads.list", kWorkloads);
    daemon_.reply("workloads.register", kRegistered);
    daemon_.reply("workloads.unregister", kRemoved);
    daemon_.reply("policy.get", kPolicy);
    daemon_.reply("pause", json::object{{"paused", true}});
    daemon_.reply("resume", json::object{{"paused", false}});
    daemon_.reply("reload", kReload);
    daemon_.fail("policy.set", "unknown policy 'nope'");
  }

  void start() { daemon_.start(); }

  CommandResult tierctl(std::vector<std::string> args) const {
    args.insert(args.begin(), {kTierctl, "--socket", socket_.string()});
    return run_command(args);
  }

  TempDir dir_{"tierctl-daemon"};
  fs::path socket_ = dir_.path() / "tierd.sock";
  ScriptedDaemon daemon_{socket_};
};

json::value parse_stdout(const CommandResult& result) {
  boost::system::error_code ec;
  json::value value = json::parse(result.out, ec);
  EXPECT_FALSE(ec) << ec.message() << "\nstdout:\n" << result.out << "\nstderr:\n" << result.err;
  return value;
}

/// The stdout line containing `needle` ("" when none).
std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

// ---- status ----------------------------------------------------------------

TEST_F(TierctlDaemon, StatusShowsTheFigures) {
  start();
  auto r = tierctl({"status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("tierd 0.1.0: running, pid 4242, up 12.5 s"));
  EXPECT_THAT(r.out, HasSubstr("static (12 ticks, last tick 0.04 ms, 0 planned moves)"));
  EXPECT_THAT(r.out, HasSubstr("3 (online 1, offline 1, default 1), 7 dropped"));
  EXPECT_THAT(line_with(r.out, "16.0 GiB"), HasSubstr("15.0 GiB"));  // node 2 total, free
  const std::string node0 = line_with(r.out, "8.0 GiB");
  EXPECT_THAT(node0, HasSubstr("4.0 GiB")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("numa_balancing: 0 -> 2"));
  EXPECT_THAT(r.out, HasSubstr("/etc/tier/tierd.toml"));
  EXPECT_THAT(r.out, HasSubstr("/run/tier/tierd.sock"));
  EXPECT_THAT(r.out, HasSubstr("/var/lib/tier/state.json"));
  EXPECT_THAT(r.out, HasSubstr("127.0.0.1:9464"));
  EXPECT_THAT(r.out, HasSubstr("last reload: ok, configuration reloaded (2026-11-30"));
  EXPECT_THAT(r.out, HasSubstr("  state:     /var/lib/tier/state.json (loaded, 3 workloads "
                               "recovered; 14 writes, 2 failed)\n"
                               "    last failed write: cannot write state file "
                               "/var/lib/tier/state.json: write /var/lib/tier/state.json.tmp.4242: "
                               "No space left on device (2026-11-30"));
  EXPECT_EQ(r.out.find("    problem:"), std::string::npos) << r.out;
  EXPECT_EQ(daemon_.received("status"),
            json::object{});  // no params (the server passes {})  // no params sent
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(TierctlDaemon, StatusJsonIsTheResultAsIs) {
  start();
  auto r = tierctl({"status", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(parse_stdout(r), kStatus);
}

// A reply with only some of the fields (an older or newer tierd) prints "-".
TEST_F(TierctlDaemon, StatusWithMissingFieldsPrintsDashes) {
  ScriptedDaemon sparse(dir_.path() / "sparse.sock");
  sparse.reply("status", json::object{{"state", "paused"}});
  sparse.start();
  auto r = run_command({kTierctl, "--socket", (dir_.path() / "sparse.sock").string(), "status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("tierd: paused, pid -"));
  EXPECT_THAT(r.out, HasSubstr("policy:      -"));
  EXPECT_THAT(r.out, HasSubstr("last reload: -"));
}

// A node that lost its memory under tierd: named as no target, and the
// change tierd counted shown with the topology it left.
TEST_F(TierctlDaemon, StatusShowsNodeMemoryThatChanged) {
  ScriptedDaemon changed(dir_.path() / "changed.sock");
  changed.reply("status", json::parse(R"js({"state": "running",
      "nodes": [{"id": 0, "tier": 0, "total_bytes": 1073741824, "free_bytes": 536870912,
                 "placeable": true},
                {"id": 4, "tier": 0, "total_bytes": 0, "free_bytes": 0, "placeable": false}],
      "topology_changes": 2,
      "last_topology_change": {"nodes": ["node 4: no memory (was 256 MiB)"],
                               "topology": "5 node(s), 2 memory tier(s)", "unix_s": 1796000000}})js"));
  changed.start();
  auto r = run_command({kTierctl, "--socket", (dir_.path() / "changed.sock").string(), "status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("no target (no memory, or not ranked): 4\n")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("node memory changed 2 time(s) under tierd; last: node 4: no memory "
                               "(was 256 MiB) (topology now 5 node(s), 2 memory tier(s))"));
  // Without a change (kStatus), neither line.
  start();
  auto plain = tierctl({"status"});
  EXPECT_THAT(plain.out, Not(HasSubstr("node memory changed")));
  EXPECT_THAT(plain.out, Not(HasSubstr("no target")));
}

// A damaged state file at start: what was wrong and where it was kept.
TEST_F(TierctlDaemon, StatusSaysTheStateFileWasDamaged) {
  ScriptedDaemon damaged(dir_.path() / "damaged.sock");
  damaged.reply("status", json::parse(R"json({"state": "running",
      "config": {"state": "/s/state.json"},
      "state_file": {"path": "/s/state.json", "found": "damaged",
                     "problem": "state file /s/state.json is empty (0 bytes)",
                     "kept_as": "/s/state.json.bad", "recovered_workloads": 0, "writes": 1,
                     "write_failures": 0, "last_write_error": "", "last_write_error_unix_s": 0}})json"));
  damaged.start();
  auto r = run_command({kTierctl, "--socket", (dir_.path() / "damaged.sock").string(), "status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  state:     /s/state.json (damaged; 1 writes)\n"
                               "    problem: state file /s/state.json is empty (0 bytes); kept as "
                               "/s/state.json.bad\n"));
  EXPECT_EQ(r.out.find("last failed write"), std::string::npos) << r.out;
}

// Replies of unexpected shape (wrong types, nulls, empty objects) still
// render: whatever a tierd sends, the human output never crashes tierctl.
TEST(TierctlDaemonShapes, OddRepliesStillRender) {
  TempDir dir("tierctl-daemon");
  const fs::path socket = dir.path() / "odd.sock";
  ScriptedDaemon odd(socket);
  odd.reply("status", json::parse(R"({"pid": "x", "uptime_s": -1, "policy": 3, "nodes": "none",
      "kernel": [1], "workloads": null, "config": [], "last_reload": {"ok": "yes"}})"));
  odd.reply("workloads.list", json::parse(R"({"workloads": [1, null, {},
      {"id": 5, "resident_bytes_by_node": {"0": "many"}, "fast_tier_share": "high"}],
      "dropped": [{"workload": "pid:5"}, 7, {"workload": null, "at_unix_s": 1e300}]})"));
  odd.reply("workloads.register", json::object{{"workload", nullptr}});
  odd.reply("workloads.unregister", nullptr);
  odd.reply("policy.get", json::parse(R"({"name": null, "params": [1],
      "available": [1, "x", {"params": 3}, {"name": "p", "params": [{"type": "int"}, [], null]}]})"));
  odd.reply("pause", json::array{});
  odd.reply("resume", "resumed");
  odd.reply("reload", json::parse(R"({"changes": [1, {"k": "v"}, null]})"));
  odd.start();
  for (auto args : std::vector<std::vector<std::string>>{{"status"},
                                                         {"workloads"},
                                                         {"workloads", "register", "--pid", "1"},
                                                         {"workloads", "unregister", "1"},
                                                         {"policy"},
                                                         {"pause"},
                                                         {"resume"},
                                                         {"reload"}}) {
    args.insert(args.begin(), {kTierctl, "--socket", socket.string()});
    auto r = run_command(args);
    EXPECT_EQ(r.exit_code, 0) << args.back() << "\n" << r.out << r.err;
    EXPECT_FALSE(r.out.empty()) << args.back();
  }
}

// ---- workloads -------------------------------------------------------------

TEST_F(TierctlDaemon, WorkloadsListsRowsAndDropped) {
  start();
  auto r = tierctl({"workloads"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ID"));
  EXPECT_THAT(r.out, HasSubstr("RESIDENT"));
  const std::string redis = line_with(r.out, "pid:1234");
  for (const char* cell :
       {"redis-server", "api", "online", "10", "shared", "8G", "4.0 GiB", "75.0%"}) {
    EXPECT_THAT(redis, HasSubstr(cell)) << r.out;
  }
  // Not sampled yet: resident and fast share are "-"; an empty pool is "-".
  const std::string batch = line_with(r.out, "cgroup:/batch.slice");
  EXPECT_THAT(batch, ::testing::MatchesRegex(".*batch +cgroup +offline +0 +- +25% +- +-$"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("recently dropped (1):"));
  EXPECT_THAT(line_with(r.out, "pid:99"), HasSubstr("pid:99 (bash): process exited"));
  // Discovery's workloads: a row, and how each was found below the table.
  EXPECT_THAT(line_with(r.out, "found:77 "), HasSubstr("discovered"));
  EXPECT_THAT(r.out, HasSubstr("found by discovery:\n  found:77: anonymous memory 412 MiB (found "
                               "at 64 MiB); class offline: nice 10\n"));
}

TEST_F(TierctlDaemon, WorkloadsListJsonIsTheResultAsIs) {
  start();
  for (auto args : {std::vector<std::string>{"workloads", "--json"},
                    std::vector<std::string>{"workloads", "list", "--json"}}) {
    auto r = tierctl(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(parse_stdout(r), kWorkloads);
  }
}

TEST_F(TierctlDaemon, RegisterSendsOnlyTheGivenParams) {
  start();
  auto r = tierctl({"workloads", "register", "--pid", "42", "--class", "online", "--quota", "25%"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(daemon_.received("workloads.register"),
            json::parse(R"({"pid":42,"class":"online","quota":"25%"})"));
  EXPECT_THAT(r.out, HasSubstr("registered pid:42"));
  EXPECT_THAT(r.out, HasSubstr("class:      online"));
  EXPECT_THAT(r.out, HasSubstr("quota:      25%"));
  EXPECT_THAT(r.out, HasSubstr("resident:   -"));
}

TEST_F(TierctlDaemon, RegisterCgroupWithEveryOption) {
  start();
  auto r = tierctl({"workloads", "register", "--cgroup", "/batch.slice", "--name", "batch",
                    "--class", "offline", "--priority", "-3", "--pool", "shared", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(daemon_.received("workloads.register"),
            json::parse(R"({"cgroup":"/batch.slice","name":"batch","class":"offline",
                            "priority":-3,"pool":"shared"})"));
  EXPECT_EQ(parse_stdout(r), kRegistered);
}

TEST_F(TierctlDaemon, UnregisterSendsAPidAsANumberAndAnIdAsAString) {
  start();
  auto by_pid = tierctl({"workloads", "unregister", "1234"});
  ASSERT_EQ(by_pid.exit_code, 0) << by_pid.err;
  EXPECT_EQ(daemon_.received("workloads.unregister"), json::parse(R"({"id":1234})"));
  EXPECT_THAT(by_pid.out, HasSubstr("unregistered pid:1234 (redis-server)"));
  auto by_id = tierctl({"workloads", "unregister", "pid:1234", "--json"});
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  EXPECT_EQ(daemon_.received("workloads.unregister"), json::parse(R"({"id":"pid:1234"})"));
  EXPECT_EQ(parse_stdout(by_id), kRemoved);
}

// ---- policy ----------------------------------------------------------------

TEST_F(TierctlDaemon, PolicyShowsCurrentAndAvailable) {
  start();
  auto r = tierctl({"policy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("policy: static"));
  EXPECT_THAT(r.out, HasSubstr("params: (none)"));
  EXPECT_THAT(r.out, HasSubstr("* static - Pin workloads to their pools; never migrate pages"));
  EXPECT_THAT(r.out, HasSubstr("  hot-promote - Promote hot pages of online workloads"));
  EXPECT_THAT(r.out, HasSubstr("--param max_mbps (type int, default 100): migration rate limit"));
  EXPECT_THAT(r.out, HasSubstr("--param dry_run\n"));
  auto json_result = tierctl({"policy", "get", "--json"});
  ASSERT_EQ(json_result.exit_code, 0) << json_result.err;
  EXPECT_EQ(parse_stdout(json_result), kPolicy);
}

TEST_F(TierctlDaemon, PolicySetSendsTypedParams) {
  daemon_.reply("policy.set", kPolicySet);  // replaces the failing handler
  start();
  auto r =
      tierctl({"policy", "set", "hot-promote", "--param", "max_mbps=200", "--param", "dry_run=true",
               "--param", "ratio=0.5", "--param", "mode=fast", "--param", "label=1.2.3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(daemon_.received("policy.set"),
            json::parse(R"({"name":"hot-promote","params":{"max_mbps":200,"dry_run":true,
                            "ratio":0.5,"mode":"fast","label":"1.2.3"}})"));
  EXPECT_THAT(r.out, HasSubstr("policy: hot-promote"));
  EXPECT_THAT(r.out, HasSubstr("params: max_mbps=200, dry_run=true"));

  auto bare = tierctl({"policy", "set", "static", "--json"});
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(daemon_.received("policy.set"), json::parse(R"({"name":"static"})"));
  EXPECT_EQ(parse_stdout(bare), kPolicySet);
}

// ---- pause, resume, reload -------------------------------------------------

TEST_F(TierctlDaemon, PauseResumeReload) {
  start();
  auto pause = tierctl({"pause"});
  ASSERT_EQ(pause.exit_code, 0) << pause.err;
  EXPECT_THAT(pause.out, HasSubstr("tierd paused"));
  auto resume = tierctl({"resume", "--json"});
  ASSERT_EQ(resume.exit_code, 0) << resume.err;
  EXPECT_EQ(parse_stdout(resume), json::parse(R"({"paused":false})"));
  auto reload = tierctl({"reload"});
  ASSERT_EQ(reload.exit_code, 0) << reload.err;
  EXPECT_THAT(reload.out, HasSubstr("configuration reloaded: 2 changes"));
  EXPECT_THAT(reload.out, HasSubstr("  daemon.log_level: info -> debug\n"));
  auto reload_json = tierctl({"reload", "--json"});
  ASSERT_EQ(reload_json.exit_code, 0) << reload_json.err;
  EXPECT_EQ(parse_stdout(reload_json), kReload);
  EXPECT_EQ(daemon_.received("pause"), json::object{});  // no params (the server passes {})
}

// The existing caller of the client keeps working against the same server.
TEST_F(TierctlDaemon, TopoFromTheDaemonStillWorks) {
  auto local = run_command({kTierctl, "topo", "--json"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  daemon_.reply("topology", parse_stdout(local));
  start();
  auto remote = tierctl({"topo", "--daemon", "--json"});
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(parse_stdout(remote), parse_stdout(local));
}

// ---- errors ----------------------------------------------------------------

TEST_F(TierctlDaemon, ErrorReplyNamesTheMethodAndExits1) {
  start();
  auto r = tierctl({"policy", "set", "nope", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tierctl: policy.set: unknown policy 'nope'\n");
  // --json: the error is also the one JSON document on stdout, with tierd's code.
  EXPECT_EQ(parse_stdout(r),
            json::parse(
                R"({"error":{"code":"not_found","message":"policy.set: unknown policy 'nope'"}})"));
}

// Input tierd refuses (code bad_request) is bad input: exit 2, as tierctl's own.
TEST(TierctlDaemonErrors, BadRequestExits2) {
  TempDir dir("tierctl-daemon");
  const fs::path socket = dir.path() / "tierd.sock";
  ScriptedDaemon server(socket);
  server.fail("policy.set", "\"budget_mbps\": expected an integer from 0 to 100000",
              tier::control::ErrorCode::bad_request);
  server.start();
  auto r = run_command({kTierctl, "--socket", socket.string(), "policy", "set", "balanced",
                        "budget_mbps=-1", "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "tierctl: policy.set: \"budget_mbps\": expected an integer from 0 to 100000\n");
  EXPECT_EQ(parse_stdout(r).at("error").at("code"), "bad_request") << r.out;
}

TEST(TierctlDaemonErrors, PermissionCodeAddsAHint) {
  TempDir dir("tierctl-daemon");
  const fs::path socket = dir.path() / "tierd.sock";
  ScriptedDaemon server(socket);
  server.fail("pause", "pause needs root or group 'tier' (uid 1000)",
              tier::control::ErrorCode::permission);
  server.start();
  for (const char* json_flag : {"", "--json"}) {
    std::vector<std::string> args{kTierctl, "--socket", socket.string(), "pause"};
    if (*json_flag != '\0') args.emplace_back(json_flag);
    auto r = run_command(args);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "tierctl: pause: pause needs root or group 'tier' (uid 1000) (run as root or as a "
              "member of group 'tier')\n");
    if (*json_flag == '\0') {
      EXPECT_TRUE(r.out.empty()) << r.out;
    } else {
      EXPECT_EQ(parse_stdout(r).at("error").at("code"), "permission") << r.out;
    }
  }
}

TEST(TierctlDaemonErrors, FailedReloadPrintsTheReason) {
  TempDir dir("tierctl-daemon");
  const fs::path socket = dir.path() / "tierd.sock";
  ScriptedDaemon server(socket);
  server.fail("reload",
              "/etc/tier/tierd.toml:3: unknown key 'tick'; keeping the running configuration",
              tier::control::ErrorCode::failed);
  server.start();
  auto r = run_command({kTierctl, "--socket", socket.string(), "reload"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "tierctl: reload: /etc/tier/tierd.toml:3: unknown key 'tick'; keeping the running "
            "configuration\n");
  EXPECT_THAT(r.err, Not(HasSubstr("run as root")));
}

TEST(TierctlDaemonErrors, NoDaemonSaysNotRunningAndNamesTheSocket) {
  TempDir dir("tierctl-daemon");
  const std::string socket = (dir.path() / "absent.sock").string();
  for (const char* command : {"status", "workloads", "policy", "pause", "resume", "reload"}) {
    auto r = run_command({kTierctl, "--socket", socket, command});
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_THAT(r.err, HasSubstr("tierctl: tierd is not running")) << command;
    EXPECT_THAT(r.err, HasSubstr("no socket at " + socket)) << command;
    EXPECT_THAT(r.err, HasSubstr("systemctl start tierd")) << command;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(TierctlDaemonErrors, StaleSocketSaysNotRunning) {
  TempDir dir("tierctl-daemon");
  const fs::path socket = dir.path() / "stale.sock";
  {
    // Bound and closed: the file stays, nobody listens (a crashed tierd).
    asio::io_context io;
    asio::local::stream_protocol::acceptor acceptor(
        io, asio::local::stream_protocol::endpoint(socket.string()));
  }
  ASSERT_TRUE(fs::exists(socket));
  auto r = run_command({kTierctl, "--socket", socket.string(), "status", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("tierctl: tierd is not running"));
  EXPECT_THAT(r.err, HasSubstr("nothing listens on " + socket.string()));
  EXPECT_EQ(parse_stdout(r).at("error").at("code"), "daemon_unreachable") << r.out;
}

// ---- usage errors: exit 2 with the command's usage, nothing sent -----------

struct UsageCase {
  std::vector<std::string> args;
  std::string mentions;
};

class TierctlUsage : public TierctlDaemon, public ::testing::WithParamInterface<UsageCase> {};

TEST_P(TierctlUsage, ExitsTwoWithUsage) {
  start();
  auto r = tierctl(GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("Usage: "));
  EXPECT_THAT(r.err, HasSubstr(GetParam().mentions));
  EXPECT_EQ(daemon_.calls(), 0) << "a bad command line must not reach tierd";
}

INSTANTIATE_TEST_SUITE_P(
    BadArgs, TierctlUsage,
    ::testing::Values(
        UsageCase{{"workloads", "register", "--pid", "42", "--class", "fast"}, "fast"},
        UsageCase{{"workloads", "register", "--class", "online"}, "--pid"},
        UsageCase{{"workloads", "register", "--pid", "42", "--cgroup", "/x"}, "--cgroup"},
        UsageCase{{"workloads", "register", "--pid", "0"}, "--pid"},
        UsageCase{{"workloads", "register", "--pid", "x"}, "--pid"},
        UsageCase{{"workloads", "register", "--pid", "1", "--priority", "high"}, "--priority"},
        UsageCase{{"workloads", "unregister"}, "ID"}, UsageCase{{"workloads", "bogus"}, "bogus"},
        UsageCase{{"policy", "set"}, "NAME"},
        UsageCase{{"policy", "set", "static", "--param", "novalue"}, "KEY=VALUE"},
        UsageCase{{"policy", "set", "static", "--param", "=1"}, "KEY=VALUE"},
        UsageCase{{"status", "extra"}, "extra"}, UsageCase{{"pause", "--force"}, "--force"}),
    [](const ::testing::TestParamInfo<UsageCase>& param_info) {
      std::string name;
      for (const auto& arg : param_info.param.args) name += test_name_from(arg) + "_";
      return name + std::to_string(param_info.index);
    });

}  // namespace
}  // namespace tier::test
