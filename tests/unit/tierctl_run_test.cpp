// The real `tierctl run` side by side with numactl 2.0.16 (without tierd):
// the same policy, CPUs and nodes seen from inside the command, the same exit
// status and signal deaths; usage errors exit 2 with a precise message. With
// a scripted tierd (its ControlServer on a thread): what workloads.register
// receives, and that a refusal or a missing command leaves nothing behind.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>

#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "scripted_tierd.hpp"
#include "test_support.hpp"
#include "tier/protocol/control_protocol.hpp"
#include "tier/topology/topology.hpp"

namespace {

namespace fs = std::filesystem;
using tier::test::CommandResult;
using tier::test::run_command;

const std::string kTierctl = std::string(TIER_BIN_DIR) + "/tierctl";
const std::string kNumactl = "/usr/bin/numactl";
// No tierd answers here, whatever runs on the machine.
const std::string kNoSocket = "/nonexistent/tier-run-test.sock";

#define SKIP_WITHOUT_NUMACTL() \
  if (!fs::exists(kNumactl)) GTEST_SKIP() << kNumactl << " not installed (apt-get install numactl)"

/// What a command sees of its binding: numactl --show plus the kernel's lists.
const std::string kProbe =
    "numactl --show; grep -E '^(Cpus_allowed_list|Mems_allowed_list):' /proc/self/status";

CommandResult under_tierctl(std::vector<std::string> flags, std::vector<std::string> command) {
  std::vector<std::string> argv{kTierctl, "--socket", kNoSocket, "run"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return run_command(argv);
}

CommandResult under_numactl(std::vector<std::string> flags, std::vector<std::string> command) {
  std::vector<std::string> argv{kNumactl};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), command.begin(), command.end());
  return run_command(argv);
}

std::vector<unsigned> allowed_cpus() {
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  std::vector<unsigned> cpus;
  for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

class TierctlRunVsNumactl : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(TierctlRunVsNumactl, TheCommandSeesTheSameBinding) {
  SKIP_WITHOUT_NUMACTL();
  std::vector<std::string> flags = GetParam();
  // "LAST" is the highest CPU tierctl may use (CPU 1 on the 2-vCPU build VM).
  for (std::string& flag : flags) {
    if (flag == "LAST") flag = std::to_string(allowed_cpus().back());
  }
  const CommandResult numactl = under_numactl(flags, {"sh", "-c", kProbe});
  const CommandResult tierctl = under_tierctl(flags, {"sh", "-c", kProbe});
  ASSERT_EQ(numactl.exit_code, 0) << numactl.err;
  ASSERT_EQ(tierctl.exit_code, 0) << tierctl.err;
  EXPECT_EQ(tierctl.out, numactl.out);
  EXPECT_EQ(tierctl.err, numactl.err);
  EXPECT_NE(tierctl.out.find("Cpus_allowed_list"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, TierctlRunVsNumactl,
    ::testing::Values(std::vector<std::string>{"--physcpubind", "LAST", "--membind", "0"},
                      std::vector<std::string>{"-C", "LAST", "-m", "0"},
                      std::vector<std::string>{"--cpunodebind", "0"},
                      std::vector<std::string>{"--cpunodebind", "0", "--physcpubind", "LAST"},
                      std::vector<std::string>{"--physcpubind", "LAST", "--cpunodebind", "0"},
                      std::vector<std::string>{"--interleave", "all"},
                      std::vector<std::string>{"--preferred", "0"},
                      std::vector<std::string>{"--preferred-many", "0"},
                      std::vector<std::string>{"--localalloc"},
                      std::vector<std::string>{"--membind", "+0"}, std::vector<std::string>{}));

TEST(TierctlRun, ExitStatusIsTheCommands) {
  SKIP_WITHOUT_NUMACTL();
  const CommandResult numactl = under_numactl({"--membind", "0"}, {"sh", "-c", "exit 7"});
  const CommandResult tierctl = under_tierctl({"--membind", "0"}, {"sh", "-c", "exit 7"});
  EXPECT_EQ(numactl.exit_code, 7);
  EXPECT_EQ(tierctl.exit_code, 7);
}

TEST(TierctlRun, ASignalKillsTheCommandAsUnderNumactl) {
  SKIP_WITHOUT_NUMACTL();
  const std::vector<std::string> suicide{"sh", "-c", "kill -TERM $$"};
  const CommandResult numactl = under_numactl({"--membind", "0"}, suicide);
  const CommandResult tierctl = under_tierctl({"--membind", "0"}, suicide);
  EXPECT_EQ(numactl.exit_code, 128 + SIGTERM);
  EXPECT_EQ(tierctl.exit_code, numactl.exit_code);
}

TEST(TierctlRun, TheCommandKeepsItsOwnFlagsAndItsPid) {
  // numactl-style: CMD starts at the first word that is not an option; its
  // -m is its own. tierctl execs, so the command is our child, not a grandchild.
  const CommandResult r = run_command({kTierctl, "--socket", kNoSocket, "run", "-m", "0", "sh",
                                       "-c", "echo $1 $2", "sh", "-m", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "-m 1\n");
  const CommandResult ppid = under_tierctl({}, {"sh", "-c", "echo $PPID"});
  EXPECT_EQ(ppid.out, std::to_string(getpid()) + "\n");
}

struct UsageCase {
  std::vector<std::string> args;  // after `tierctl run`
  std::string message;            // a part of stderr's first line
};

class TierctlRunUsage : public ::testing::TestWithParam<UsageCase> {};

TEST_P(TierctlRunUsage, ExitsTwoWithAPreciseMessageAndTheUsage) {
  std::vector<std::string> argv{kTierctl, "--socket", kNoSocket, "run"};
  argv.insert(argv.end(), GetParam().args.begin(), GetParam().args.end());
  const CommandResult r = run_command(argv);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--membind NODES"), std::string::npos) << "usage missing: " << r.err;
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Errors, TierctlRunUsage,
    ::testing::Values(
        UsageCase{{"--membind", "0", "--interleave", "0", "true"},
                  "tierctl run: conflicting memory policies: --membind 0 and --interleave 0"},
        UsageCase{{"--preferred", "0", "--membind", "0", "true"},
                  "conflicting memory policies: --preferred 0 and --membind 0"},
        UsageCase{{"--localalloc", "--membind", "0", "true"},
                  "conflicting memory policies: --localalloc and --membind 0"},
        UsageCase{{"--membind", "9999", "true"}, "--membind '9999': node argument 9999"},
        UsageCase{{"--membind", "x", "true"}, "--membind 'x': unparseable node description"},
        UsageCase{{"--physcpubind", "4095", "true"}, "--physcpubind '4095': cpu argument 4095"},
        UsageCase{{"--physcpubind", "1-", "true"}, "--physcpubind '1-'"},
        UsageCase{{"--membind", "0"}, "missing CMD"}, UsageCase{{"--bogus", "true"}, "--bogus"},
        UsageCase{{"--near", "no-such-device", "true"}, "--near 'no-such-device': no such device"},
        UsageCase{{"--pool", "exclusive:x", "true"}, "--pool 'exclusive:x'"},
        UsageCase{{"--pool", "exclusive:4097", "true"},
                  "--pool 'exclusive:4097': 4097 CPUs asked, "},
        UsageCase{{"--class", "batch", "true"}, "--class 'batch': expected online or offline"},
        UsageCase{{"--near", "x", "--membind", "0", "true"}, "--near x conflicts with --membind 0"},
        UsageCase{{"--preload", "hot", "true"},
                  "--preload hot: expected local|fast|slow|auto|nodes:LIST"}));

TEST(TierctlRun, OptionsThatNeedTierdFailWithoutIt) {
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"--pool", "exclusive:1"},
                                                        {"--pool", "immovable:1"},
                                                        {"--class", "online"},
                                                        {"--quota", "8G"}}) {
    const CommandResult r = under_tierctl({flag, value}, {"true"});
    EXPECT_EQ(r.exit_code, 1) << flag;
    EXPECT_EQ(r.err, "tierctl run: " + flag + " " + value + " needs tierd (not running at " +
                         kNoSocket + "); start it or drop the option\n");
  }
  EXPECT_EQ(under_tierctl({"--pool", "shared"}, {"true"}).exit_code, 0);
}

TEST(TierctlRun, NumaPoolWithoutTierdBindsToTheNodeAndPrefersIt) {
  SKIP_WITHOUT_NUMACTL();
  const CommandResult pool = under_tierctl({"--pool", "numa:0"}, {"sh", "-c", kProbe});
  const CommandResult numactl =
      under_numactl({"--cpunodebind", "0", "--preferred", "0"}, {"sh", "-c", kProbe});
  EXPECT_EQ(pool.exit_code, 0) << pool.err;
  EXPECT_EQ(pool.out, numactl.out);
}

TEST(TierctlRun, CommandNotFoundIs127AndNotExecutableIs126) {
  const CommandResult missing = under_tierctl({}, {"tier-no-such-command"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_EQ(missing.err, "tierctl run: tier-no-such-command: command not found\n");
  tier::test::TempDir dir("run-noexec");
  const fs::path script = dir.path() / "script";
  tier::test::write_text_file(script, "#!/bin/sh\n");
  chmod(script.c_str(), 0644);
  const CommandResult not_executable = under_tierctl({}, {script.string()});
  EXPECT_EQ(not_executable.exit_code, 126);
  EXPECT_EQ(not_executable.err, "tierctl run: " + script.string() + ": not executable\n");
}

TEST(TierctlRun, NearALiveDeviceBindsToItsNode) {
  const tier::Topology topology = tier::load_topology();
  const tier::Device* device = nullptr;
  for (const tier::Device& d : topology.devices()) {
    if (d.numa_node && topology.node(*d.numa_node) != nullptr &&
        !topology.node(*d.numa_node)->cpus.empty()) {
      device = &d;
      break;
    }
  }
  if (device == nullptr)
    GTEST_SKIP() << "no device with a NUMA node on this machine (tierctl topo)";
  const tier::Node& node = *topology.node(*device->numa_node);
  const std::string name = device->name.substr(0, device->name.find(','));
  const CommandResult r = under_tierctl(
      {"--near", name}, {"grep", "-E", "^(Cpus|Mems)_allowed_list", "/proc/self/status"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Cpus_allowed_list:\t" + node.cpus.to_string() + "\n"), std::string::npos)
      << r.out;
  if (fs::exists(kNumactl)) {
    const CommandResult numactl = under_numactl(
        {"--cpunodebind", std::to_string(node.id), "--membind", std::to_string(node.id)},
        {"sh", "-c", kProbe});
    const CommandResult near = under_tierctl({"--near", name}, {"sh", "-c", kProbe});
    EXPECT_EQ(near.out, numactl.out);
  }
}

// ---- with tierd -------------------------------------------------------------

namespace json = boost::json;

/// The scripted tierd answering workloads.register (or refusing it with
/// `refusal` and `code`: a pool it cannot meet is `conflict`, as tierd says)
/// and workloads.unregister.
void script_registration(tier::test::ScriptedDaemon& tierd,
                         std::optional<std::string> refusal = std::nullopt,
                         tier::control::ErrorCode code = tier::control::ErrorCode::conflict) {
  if (refusal) {
    tierd.fail("workloads.register", *refusal, code);
  } else {
    tierd.reply("workloads.register", json::object{{"workload", json::object{{"id", "pid:1"}}}});
  }
  tierd.reply("workloads.unregister", json::object{{"workload", json::object{{"id", "pid:1"}}}});
  tierd.start();
}

class TierctlRunWithTierd : public ::testing::Test {
 protected:
  CommandResult run(std::vector<std::string> args) {
    std::vector<std::string> argv{kTierctl, "--socket", socket_.string(), "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
  }
  tier::test::TempDir dir_{"run-tierd"};
  fs::path socket_ = dir_.path() / "tierd.sock";
  tier::test::ScriptedDaemon tierd_{socket_};
};

TEST_F(TierctlRunWithTierd, RegistersTheCommandsPidWithTheGivenOptionsOnly) {
  script_registration(tierd_);
  // sh prints its own pid: tierctl's, since tierctl execs it.
  const CommandResult r = run({"--class", "online", "--quota", "8G", "--pool", "exclusive:1",
                               "--membind", "0", "--", "sh", "-c", "echo $$"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // nothing printed on success without --verbose
  const auto requests = tierd_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].first, "workloads.register");
  const json::value expected = {{"pid", std::stoll(r.out)},
                                {"name", "sh"},
                                {"class", "online"},
                                {"pool", "exclusive:1"},
                                {"quota", "8G"}};
  EXPECT_EQ(requests[0].second, expected);
}

TEST_F(TierctlRunWithTierd, WithoutOptionsOnlyThePidAndTheCommandsNameAreSent) {
  script_registration(tierd_);
  const CommandResult r = run({"-v", "sh", "-c", "echo $$"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("registered with tierd"), std::string::npos) << r.err;
  const auto requests = tierd_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].second, (json::value{{"pid", std::stoll(r.out)}, {"name", "sh"}}));
}

TEST_F(TierctlRunWithTierd, ARefusalFailsWithTierdsMessageAndRunsNothing) {
  script_registration(tierd_, "exclusive:1: would leave the shared pool empty");
  const fs::path marker = dir_.path() / "ran";
  const CommandResult r = run({"--pool", "exclusive:1", "touch", marker.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exclusive:1: would leave the shared pool empty"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(marker));
}

// Input tierd judges bad (bad_request) is bad input: exit 2, and nothing runs.
TEST_F(TierctlRunWithTierd, ABadRequestExitsTwoAndRunsNothing) {
  script_registration(tierd_, "\"quota\": invalid quota '1T'",
                      tier::control::ErrorCode::bad_request);
  const fs::path marker = dir_.path() / "ran";
  const CommandResult r = run({"--quota", "1T", "touch", marker.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "tierctl run: workloads.register: \"quota\": invalid quota '1T'\n");
  EXPECT_FALSE(fs::exists(marker));
}

TEST_F(TierctlRunWithTierd, AMissingCommandIsNeverRegistered) {
  script_registration(tierd_);
  const CommandResult r = run({"--class", "offline", "tier-no-such-command"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_TRUE(tierd_.requests().empty());
}

TEST_F(TierctlRunWithTierd, AnExecThatFailsAfterRegisteringIsUnregisteredAgain) {
  script_registration(tierd_);
  // Executable, so it passes the check before registering; exec then fails
  // on the missing interpreter.
  const fs::path script = dir_.path() / "script";
  tier::test::write_text_file(script, "#!/nonexistent/interpreter\n");
  chmod(script.c_str(), 0755);
  const CommandResult r = run({script.string()});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.err, "tierctl run: " + script.string() + ": No such file or directory\n");
  const auto requests = tierd_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].first, "workloads.register");
  EXPECT_EQ(requests[1].first, "workloads.unregister");
  EXPECT_EQ(requests[1].second, (json::value{{"id", requests[0].second.at("pid")}}));
}

}  // namespace
