// Every input tierd's configuration takes, checked at the edge (issue 16):
// one table per section feeding empty, negative, huge, non-numeric,
// nonexistent and wrong-kind values to each key, asserting the error names
// the file, the line and the key; the same configuration checked against
// fixture machines (tests/fixtures/sysfs: nodes, CPUs, cgroup mounts, heat
// sources and kernel knobs that are not there); and the tierd binary's flags
// (exit 2 and the flag named). The last test counts the cases per class.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config.hpp"
#include "config_check.hpp"
#include "test_support.hpp"

namespace tierd {
namespace {

namespace fs = std::filesystem;
using tier::test::TempDir;

// The classes of bad input the issue names.
constexpr const char* kEmpty = "empty";
constexpr const char* kNegative = "negative";
constexpr const char* kHuge = "huge";
constexpr const char* kNonNumeric = "non-numeric";
constexpr const char* kNonexistent = "nonexistent";
constexpr const char* kWrongKind = "wrong-kind";

struct InputCase {
  const char* kind;  // one of the classes above
  std::string toml;
  std::string key;  // dotted, as the message names it
  unsigned line;
  std::string why;  // a part of the reason the message must hold
};

std::ostream& operator<<(std::ostream& out, const InputCase& c) {
  return out << c.kind << " " << c.key << " in {" << c.toml << "}";
}

std::string parse_error(const std::string& toml) {
  try {
    parse_config(toml, "test.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// "[table]\nkey = value\n": the key on line 2.
InputCase at2(const char* kind, const std::string& table, const std::string& key,
              const std::string& value, const std::string& why) {
  return {kind, "[" + table + "]\n" + key + " = " + value + "\n", table + "." + key, 2, why};
}

// An entry of [[workloads.watch]] / [[workloads.rule]] with its required
// key on line 2 and `key` on line 3.
InputCase entry(const char* kind, const std::string& array, const std::string& key,
                const std::string& value, const std::string& why) {
  const std::string required =
      array == "watch" ? "parent = \"/sys/fs/cgroup/x\"\n" : "match = \"x\"\n";
  return {kind, "[[workloads." + array + "]]\n" + required + key + " = " + value + "\n",
          "workloads." + array + "[0]." + key, 3, why};
}

class ConfigInput : public ::testing::TestWithParam<InputCase> {};

TEST_P(ConfigInput, IsRefusedNamingFileLineAndKey) {
  const InputCase& c = GetParam();
  const std::string error = parse_error(c.toml);
  const std::string where = "test.toml:" + std::to_string(c.line) + ": key '" + c.key + "': ";
  EXPECT_EQ(error.rfind(where, 0), 0u) << "expected " << where << "..., got: " << error;
  EXPECT_NE(error.find(c.why), std::string::npos) << error;
  // Plain numbers only.
  for (const char* unplain : {"e+", ".000000", "4294967295"}) {
    EXPECT_EQ(error.find(unplain), std::string::npos) << error;
  }
}

const std::string kEpoch = "expected an integer from 100 to 3600000";
const std::string kTick = "expected an integer from 10 to 3600000";
const std::string kMode = "expected \"keep\" or a mode 0-3";
const std::string kKeepBool = "expected \"keep\", true or false";
const std::string kCpuList = "expected a CPU list like \"0\" or \"0-1,8\"";
const std::string kPriority = "expected an integer from -1000 to 1000";
const std::string kBudget = "expected an integer from 0 to 100000";
const std::string kNodeKey = "node id: expected an integer from 0 to 1023";
const std::string kRank = "expected a tier rank, an integer from 0 to 1023";

const std::vector<InputCase> kDaemon = {
    at2(kEmpty, "daemon", "socket", "\"\"", "expected a socket path, got nothing"),
    at2(kEmpty, "daemon", "state", "\"\"", "expected a file path, got nothing"),
    at2(kEmpty, "daemon", "log_level", "\"\"", "expected one of error, warn, info, debug"),
    at2(kEmpty, "daemon", "epoch_ms", "\"\"", kEpoch),
    at2(kNegative, "daemon", "epoch_ms", "-1", kEpoch),
    at2(kHuge, "daemon", "epoch_ms", "99999999999", kEpoch),
    at2(kNonNumeric, "daemon", "epoch_ms", "\"fast\"", kEpoch),
    at2(kNonNumeric, "daemon", "epoch_ms", "1.5", kEpoch),
    at2(kNonexistent, "daemon", "log_level", "\"loud\"", "expected one of error, warn, info"),
    at2(kWrongKind, "daemon", "socket", "5", "expected a string"),
    at2(kWrongKind, "daemon", "state", "true", "expected a string"),
    at2(kWrongKind, "daemon", "log_level", "3", "expected a string"),
};

const std::vector<InputCase> kMetrics = {
    at2(kEmpty, "metrics", "listen", "\"\"", "metrics listen address '': empty"),
    at2(kNegative, "metrics", "listen", "\"127.0.0.1:-1\"", "port '-1' is not a number"),
    at2(kHuge, "metrics", "listen", "\"127.0.0.1:65536\"", "port 65536 is out of range 0-65535"),
    at2(kNonNumeric, "metrics", "listen", "\"127.0.0.1:http\"", "port 'http' is not a number"),
    at2(kNonexistent, "metrics", "listen", "\"localhost:9464\"", "listen address"),
    at2(kWrongKind, "metrics", "listen", "9464", "expected a string"),
};

const std::vector<InputCase> kPolicy = {
    at2(kEmpty, "policy", "name", "\"\"", "unknown policy ''"),
    at2(kEmpty, "policy", "tick_ms", "\"\"", kTick),
    at2(kNegative, "policy", "tick_ms", "-5", kTick),
    at2(kHuge, "policy", "tick_ms", "1000000000000", kTick),
    at2(kNonNumeric, "policy", "tick_ms", "\"soon\"", kTick),
    at2(kNonexistent, "policy", "name", "\"crystal\"", "unknown policy 'crystal' (policies: "),
    {kNegative, "[policy]\nname = \"balanced\"\nparams = { budget_mbps = -1 }\n", "policy.params",
     3, "parameter 'budget_mbps': expected a number from 0 to 100000, got -1"},
    {kHuge, "[policy]\nname = \"balanced\"\nparams = { budget_mbps = 1e300 }\n", "policy.params", 3,
     "expected a number from 0 to 100000, got 1e300"},
    {kNonNumeric, "[policy]\nname = \"balanced\"\nparams = { budget_mbps = \"lots\" }\n",
     "policy.params.budget_mbps", 3, "expected a number"},
    {kNonNumeric, "[policy]\nname = \"balanced\"\nparams = { budget_mbps = nan }\n",
     "policy.params.budget_mbps", 3, "expected a number"},
    {kNonexistent, "[policy]\nname = \"tpp\"\nparams = { burst_s = 1 }\n", "policy.params", 3,
     "policy 'tpp' has no parameter 'burst_s'"},
    at2(kWrongKind, "policy", "paused", "\"yes\"", "expected true or false"),
    at2(kWrongKind, "policy", "params", "5", "expected a table of name = number"),
};

const std::vector<InputCase> kKernel = {
    at2(kEmpty, "kernel", "numa_balancing", "\"\"", kMode),
    at2(kNegative, "kernel", "numa_balancing", "-1", kMode),
    at2(kHuge, "kernel", "numa_balancing", "4", kMode),
    at2(kNonNumeric, "kernel", "numa_balancing", "\"tiering\"", kMode),
    at2(kEmpty, "kernel", "demotion_enabled", "\"\"", kKeepBool),
    at2(kNonexistent, "kernel", "demotion_enabled", "\"maybe\"", kKeepBool),
    at2(kWrongKind, "kernel", "demotion_enabled", "1", kKeepBool),
    at2(kWrongKind, "kernel", "numa_balancing", "2.0", kMode),
};

const std::vector<InputCase> kPlacement = {
    at2(kEmpty, "placement", "kernel_tiering", "\"\"", "expected \"own\", \"coexist\" or"),
    at2(kEmpty, "placement", "heat_source", "\"\"", "unknown heat source ''"),
    at2(kNonexistent, "placement", "kernel_tiering", "\"mine\"", "expected \"own\""),
    at2(kNonexistent, "placement", "heat_source", "\"crystal-ball\"",
        "unknown heat source 'crystal-ball' (sources: auto, off, "),
    at2(kWrongKind, "placement", "heat_source", "[\"damon\"]", "expected a string"),
};

const std::vector<InputCase> kPools = {
    at2(kWrongKind, "pools", "enabled", "\"yes\"", "expected true or false"),
    at2(kEmpty, "pools", "backend", "\"\"", "expected \"auto\", \"cgroup-v2\""),
    at2(kNonexistent, "pools", "backend", "\"cgroup-v3\"", "expected \"auto\", \"cgroup-v2\""),
    at2(kNegative, "pools", "reserved", "\"-1\"", kCpuList),
    at2(kHuge, "pools", "reserved", "\"99999999999999999999\"", kCpuList),
    at2(kNonNumeric, "pools", "reserved", "\"first\"", kCpuList),
    at2(kNonNumeric, "pools", "reserved", "\" \"", kCpuList),
    at2(kWrongKind, "pools", "reserved", "0", "expected a string"),
    at2(kEmpty, "pools", "placement", "\"\"", "expected \"pack\" or \"spread\""),
    at2(kEmpty, "pools", "parent", "\"\"", "expected one cgroup directory name"),
    at2(kWrongKind, "pools", "parent", "\"a/b\"", "expected one cgroup directory name"),
    at2(kWrongKind, "pools", "isolate_irqs", "1", "expected true or false"),
};

const std::string kThreshold = "expected a number from 0.01 to 1";
const std::vector<InputCase> kSuppression = {
    at2(kEmpty, "suppression", "cpu_threshold", "\"\"", kThreshold),
    at2(kNegative, "suppression", "cpu_threshold", "-0.5", kThreshold),
    at2(kHuge, "suppression", "cpu_threshold", "1e308", kThreshold),
    at2(kHuge, "suppression", "cpu_threshold", "inf", kThreshold),
    at2(kNonNumeric, "suppression", "cpu_threshold", "nan", kThreshold),
    at2(kNonNumeric, "suppression", "cpu_threshold", "\"high\"", kThreshold),
    at2(kNegative, "suppression", "cpu_restore", "-1", "expected a number from 0 to 1"),
    at2(kNegative, "suppression", "restore_delay_s", "-1", "expected a number from 0 to 3600"),
    at2(kHuge, "suppression", "restore_delay_s", "1e9", "expected a number from 0 to 3600"),
    at2(kEmpty, "suppression", "min_offline_cpus", "\"\"", "expected an integer from 1 to 1048576"),
    at2(kNegative, "suppression", "min_offline_cpus", "-1",
        "expected an integer from 1 to 1048576"),
    at2(kHuge, "suppression", "step_cpus", "99999999", "expected an integer from 1 to 1048576"),
    at2(kNonNumeric, "suppression", "step_cpus", "\"two\"",
        "expected an integer from 1 to 1048576"),
    at2(kHuge, "suppression", "fast_share_floor", "2", "expected a number from 0 to 1"),
    at2(kHuge, "suppression", "churn_limit_mbps", "1e7", "expected a number from 0 to 1000000"),
    at2(kNegative, "suppression", "memory_budget_factor", "-0.1", "expected a number from 0 to 1"),
    at2(kWrongKind, "suppression", "fast_free_trigger", "\"yes\"", "expected true or false"),
    at2(kWrongKind, "suppression", "enabled", "1", "expected true or false"),
};

const std::vector<InputCase> kWorkloads = {
    at2(kWrongKind, "workloads", "kubepods", "\"kubepods.slice\"",
        "expected an absolute cgroup directory path or \"\""),
    at2(kWrongKind, "workloads", "kubepods", "1", "expected a string"),
    at2(kWrongKind, "workloads", "pod_overrides", "\"pods.toml\"",
        "expected an absolute file path or \"\""),
    at2(kWrongKind, "workloads", "watch", "5", "expected an array of tables ([[workloads.watch]])"),
    at2(kEmpty, "workloads", "discover", "\"\"",
        R"(expected "off", "auto", "processes" or "cgroups")"),
    at2(kWrongKind, "workloads", "discover", "\"on\"",
        R"(expected "off", "auto", "processes" or "cgroups")"),
    at2(kWrongKind, "workloads", "discover", "true", "expected a string"),
    at2(kEmpty, "workloads", "discover_min_size", "\"\"", "expected a size from 1M to 1T"),
    at2(kNegative, "workloads", "discover_min_size", "\"-64M\"",
        "expected a size in bytes with an optional K, M, G or T suffix, from 1M to 1T"),
    at2(kHuge, "workloads", "discover_min_size", "\"2T\"", "expected a size from 1M to 1T"),
    at2(kNonNumeric, "workloads", "discover_min_size", "\"big\"",
        "expected a size in bytes with an optional K, M, G or T suffix, from 1M to 1T"),
    at2(kWrongKind, "workloads", "discover_min_size", "64", "expected a string"),
    {kEmpty, "[[workloads.watch]]\nclass = \"offline\"\n", "workloads.watch[0].parent", 1,
     "required"},
    {kEmpty, "[[workloads.watch]]\nparent = \"\"\n", "workloads.watch[0].parent", 2,
     "expected an absolute cgroup directory path"},
    {kWrongKind, "[[workloads.watch]]\nparent = \"kubepods\"\n", "workloads.watch[0].parent", 2,
     "expected an absolute cgroup directory path"},
    entry(kEmpty, "watch", "class", "\"\"", "expected \"online\", \"offline\" or \"default\""),
    entry(kNonexistent, "watch", "class", "\"gold\"", "expected \"online\", \"offline\""),
    entry(kNegative, "watch", "priority", "-1001", kPriority),
    entry(kHuge, "watch", "priority", "1001", kPriority),
    entry(kNonNumeric, "watch", "priority", "\"high\"", kPriority),
    entry(kEmpty, "watch", "pool", "\"\"", "pool \"\""),
    entry(kNegative, "watch", "pool", "\"numa:-1\"", "pool \"numa:-1\""),
    entry(kHuge, "watch", "pool", "\"exclusive:99999999999\"", "pool \"exclusive:99999999999\""),
    entry(kNonNumeric, "watch", "pool", "\"numa:x\"", "pool \"numa:x\""),
    entry(kNonexistent, "watch", "pool", "\"private\"", "pool \"private\""),
    entry(kNegative, "watch", "quota", "\"-1\"", "invalid quota '-1'"),
    entry(kHuge, "watch", "quota", "\"101%\"", "a percentage must be over 0 and at most 100"),
    entry(kHuge, "watch", "quota", "\"99999999999999999999T\"", "too large"),
    entry(kNonNumeric, "watch", "quota", "\"lots\"", "invalid quota 'lots'"),
    entry(kNegative, "watch", "budget_mbps", "-1", kBudget),
    entry(kHuge, "watch", "budget_mbps", "100001", kBudget),
    entry(kNonNumeric, "rule", "budget_mbps", "\"fast\"", kBudget),
    entry(kNonNumeric, "rule", "priority", "0.5", kPriority),
    entry(kEmpty, "rule", "pool", "\"\"", "pool \"\""),
    {kEmpty, "[[workloads.rule]]\nmatch = \"\"\n", "workloads.rule[0].match", 2,
     "expected a non-empty regex"},
    {kWrongKind, "[[workloads.rule]]\nmatch = \"(\"\n", "workloads.rule[0].match", 2,
     "not a valid regex"},
    {kWrongKind, "[[workloads.rule]]\nmatch = 5\n", "workloads.rule[0].match", 2,
     "expected a string"},
};

const std::vector<InputCase> kTopology = {
    at2(kEmpty, "topology", "root", "\"\"", "expected a directory path, got nothing"),
    at2(kWrongKind, "topology", "root", "5", "expected a string"),
    at2(kWrongKind, "topology", "tier_override", "5", "expected a table of \"node\" = rank"),
    {kEmpty, "[topology]\ntier_override = { \"\" = 1 }\n", "topology.tier_override.", 2,
     "node id: expected an integer from 0 to 1023, got nothing"},
    {kNegative, "[topology]\ntier_override = { \"-1\" = 1 }\n", "topology.tier_override.-1", 2,
     kNodeKey},
    {kHuge, "[topology]\ntier_override = { \"4294967296\" = 1 }\n",
     "topology.tier_override.4294967296", 2, kNodeKey},
    {kNonNumeric, "[topology]\ntier_override = { \"cxl\" = 1 }\n", "topology.tier_override.cxl", 2,
     kNodeKey},
    {kNonNumeric, "[topology]\ntier_override = { \" 1\" = 1 }\n", "topology.tier_override. 1", 2,
     "node id: expected an integer from 0 to 1023, without surrounding spaces"},
    {kNegative, "[topology]\ntier_override = { \"1\" = -1 }\n", "topology.tier_override.1", 2,
     kRank},
    {kHuge, "[topology]\ntier_override = { \"1\" = 4294967296 }\n", "topology.tier_override.1", 2,
     kRank},
    {kNonNumeric, "[topology]\ntier_override = { \"1\" = \"slow\" }\n", "topology.tier_override.1",
     2, kRank},
};

INSTANTIATE_TEST_SUITE_P(Daemon, ConfigInput, ::testing::ValuesIn(kDaemon));
INSTANTIATE_TEST_SUITE_P(Metrics, ConfigInput, ::testing::ValuesIn(kMetrics));
INSTANTIATE_TEST_SUITE_P(Policy, ConfigInput, ::testing::ValuesIn(kPolicy));
INSTANTIATE_TEST_SUITE_P(Kernel, ConfigInput, ::testing::ValuesIn(kKernel));
INSTANTIATE_TEST_SUITE_P(Placement, ConfigInput, ::testing::ValuesIn(kPlacement));
INSTANTIATE_TEST_SUITE_P(Pools, ConfigInput, ::testing::ValuesIn(kPools));
INSTANTIATE_TEST_SUITE_P(Suppression, ConfigInput, ::testing::ValuesIn(kSuppression));
INSTANTIATE_TEST_SUITE_P(Workloads, ConfigInput, ::testing::ValuesIn(kWorkloads));
INSTANTIATE_TEST_SUITE_P(Topology, ConfigInput, ::testing::ValuesIn(kTopology));

// ---- against fixture machines ----------------------------------------------

const fs::path kFixtures = fs::path(TIER_FIXTURES) / "sysfs";

struct MachineCase {
  const char* kind;
  const char* machine;  // a tree under tests/fixtures/sysfs
  std::string toml;     // @TMP@ is a scratch directory holding a file "afile"
  std::string key;
  unsigned line;  // 0: the key is not in the file
  ConfigFinding::Severity severity;
  std::string why;
};

std::ostream& operator<<(std::ostream& out, const MachineCase& c) {
  return out << c.kind << " " << c.key << " on " << c.machine << " in {" << c.toml << "}";
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The case's file parsed and checked against its machine: the topology and
// the system root are the fixture tree; the socket and state go to the
// scratch directory unless the case sets them.
ConfigCheck check_on_machine(const std::string& toml, const std::string& machine,
                             const fs::path& scratch) {
  ConfigSource source;
  Config config = parse_config(toml, "test.toml", &source);
  const fs::path root = kFixtures / machine;
  if (!source.lines.contains("topology.root")) config.topology_root = root.string();
  if (!source.lines.contains("daemon.socket")) config.socket = (scratch / "t.sock").string();
  if (!source.lines.contains("daemon.state")) config.state_path = (scratch / "s.json").string();
  return check_config(config, source, tier::SysRoot(root));
}

class MachineCheck : public ::testing::TestWithParam<MachineCase> {
 protected:
  void SetUp() override { tier::test::write_text_file(dir_.path() / "afile", "x\n"); }
  TempDir dir_{"tierd-config-check"};
};

TEST_P(MachineCheck, FindsItWithTheReasonNamingFileLineAndKey) {
  const MachineCase& c = GetParam();
  const std::string toml = replace_all(c.toml, "@TMP@", dir_.path().string());
  const ConfigCheck check = check_on_machine(toml, c.machine, dir_.path());
  const ConfigFinding* found = nullptr;
  for (const ConfigFinding& finding : check.findings) {
    if (finding.key == c.key) found = &finding;
  }
  ASSERT_NE(found, nullptr) << "nothing found on " << c.key;
  EXPECT_EQ(found->severity, c.severity) << found->message;
  const std::string where = c.line == 0
                                ? "test.toml: key '" + c.key + "' (default): "
                                : "test.toml:" + std::to_string(c.line) + ": key '" + c.key + "': ";
  EXPECT_EQ(found->message.rfind(where, 0), 0u) << found->message;
  const std::string why = replace_all(c.why, "@TMP@", dir_.path().string());
  EXPECT_NE(found->message.find(why), std::string::npos) << found->message;
  EXPECT_EQ(check.ok(), c.severity != ConfigFinding::Severity::error);
}

using Severity = ConfigFinding::Severity;
const std::vector<MachineCase> kMachine = {
    {kNonexistent, "qemu-4node", "[topology]\ntier_override = { \"3\" = 1, \"7\" = 2 }\n",
     "topology.tier_override.7", 2, Severity::error,
     "no such NUMA node 7 on this machine (nodes: 0-3)"},
    {kNonexistent, "1s-nps4-cxl", "[topology]\ntier_override = { \"5\" = 1 }\n",
     "topology.tier_override.5", 2, Severity::error,
     "no such NUMA node 5 on this machine (nodes: 0-4)"},
    {kNonexistent, "qemu-4node", "[pools]\nreserved = \"4\"\n", "pools.reserved", 2,
     Severity::error, "no such CPU 4 on this machine (CPUs: 0-3)"},
    {kNonexistent, "1s-nps4-cxl", "[pools]\nreserved = \"14-17\"\n", "pools.reserved", 2,
     Severity::error, "no such CPUs 16-17 on this machine (CPUs: 0-15)"},
    {kNonexistent, "qemu-4node",
     "[[workloads.watch]]\nparent = \"/sys/fs/cgroup\"\npool = \"numa:4\"\n",
     "workloads.watch[0].pool", 3, Severity::error,
     "no such NUMA node 4 on this machine (nodes: 0-3)"},
    {kNonexistent, "2s-cxl-hmat", "[[workloads.rule]]\nmatch = \"redis\"\npool = \"numa:9\"\n",
     "workloads.rule[0].pool", 3, Severity::error,
     "no such NUMA node 9 on this machine (nodes: 0-3)"},
    {kNonexistent, "qemu-4node", "[topology]\nroot = \"@TMP@/none\"\n", "topology.root", 2,
     Severity::error, "no such directory"},
    {kNonexistent, "qemu-4node",
     "[workloads]\nkubepods = \"/k\"\npod_overrides = \"@TMP@/p.toml\"\n",
     "workloads.pod_overrides", 3, Severity::error, "no such file"},
    {kNonexistent, "qemu-4node", "[pools]\nenabled = true\nbackend = \"cgroup-v2\"\n",
     "pools.backend", 3, Severity::error,
     "cpuset backend cgroup-v2 is not usable here: cgroup_v2_cpuset missing: no cgroup2 mount in "
     "the mount table"},
    {kNonexistent, "qemu-4node", "[pools]\nenabled = true\nbackend = \"cgroup-v1\"\n",
     "pools.backend", 3, Severity::error,
     "cgroup_v1_cpuset missing: no cgroup v1 mount with the cpuset controller"},
    {kNonexistent, "qemu-4node", "[pools]\nenabled = true\n", "pools.backend", 0, Severity::warning,
     "no cpuset controller here (cgroup_v2_cpuset missing: "},
    {kNonexistent, "qemu-4node", "[placement]\nheat_source = \"damon\"\n", "placement.heat_source",
     2, Severity::warning, "heat source damon is not available here: "},
    {kNonexistent, "qemu-4node", "[kernel]\nnuma_balancing = 2\n", "kernel.numa_balancing", 2,
     Severity::warning,
     "numa_balancing missing: no /proc/sys/kernel/numa_balancing (CONFIG_NUMA_BALANCING off)"},
    {kNonexistent, "qemu-4node", "[placement]\nkernel_tiering = \"own\"\n",
     "placement.kernel_tiering", 2, Severity::warning,
     "\"own\" writes kernel.demotion_enabled but it cannot be written here: demotion missing"},
    {kNonexistent, "qemu-4node", "[[workloads.watch]]\nparent = \"/sys/fs/cgroup/batch\"\n",
     "workloads.watch[0].parent", 2, Severity::warning,
     "no cgroup directory /sys/fs/cgroup/batch here (yet)"},
    {kNonexistent, "qemu-4node", "[workloads]\nkubepods = \"/sys/fs/cgroup/kubepods.slice\"\n",
     "workloads.kubepods", 2, Severity::warning, "no cgroup directory"},
    {kWrongKind, "qemu-4node", "[daemon]\nsocket = \"@TMP@/afile/t.sock\"\n", "daemon.socket", 2,
     Severity::error, "@TMP@/afile is a file, expected a directory"},
    {kWrongKind, "qemu-4node", "[daemon]\nsocket = \"@TMP@/afile\"\n", "daemon.socket", 2,
     Severity::error, "is a file, expected a socket"},
    {kWrongKind, "qemu-4node", "[daemon]\nstate = \"@TMP@\"\n", "daemon.state", 2, Severity::error,
     "is a directory, expected a file"},
    {kWrongKind, "qemu-4node", "[daemon]\nstate = \"@TMP@/afile/deeper/s.json\"\n", "daemon.state",
     2, Severity::error,
     "@TMP@/afile is a file, expected a directory, so tierd cannot create directory "
     "@TMP@/afile/deeper"},
    {kWrongKind, "qemu-4node", "[workloads]\nkubepods = \"/k\"\npod_overrides = \"@TMP@\"\n",
     "workloads.pod_overrides", 3, Severity::error, "is a directory, expected a file"},
    {kWrongKind, "qemu-4node", "[topology]\nroot = \"@TMP@/afile\"\n", "topology.root", 2,
     Severity::error, "is a file, expected a directory"},
    {kWrongKind, "qemu-4node", "[suppression]\nenabled = true\n", "suppression.enabled", 2,
     Severity::error, "needs pools.enabled = true"},
    {kWrongKind, "qemu-4node", "[workloads]\npod_overrides = \"@TMP@/afile\"\n",
     "workloads.pod_overrides", 2, Severity::warning, "is read only with workloads.kubepods set"},
};

INSTANTIATE_TEST_SUITE_P(Fixtures, MachineCheck, ::testing::ValuesIn(kMachine));

TEST(MachineCheck, ASettingThatFitsTheMachineIsNoFinding) {
  TempDir dir("tierd-config-check");
  const ConfigCheck check = check_on_machine(
      "[pools]\nreserved = \"0-3\"\n[topology]\ntier_override = { \"3\" = 1 }\n"
      "[[workloads.rule]]\nmatch = \"redis\"\npool = \"numa:3\"\n",
      "qemu-4node", dir.path());
  for (const ConfigFinding& finding : check.findings) {
    EXPECT_EQ(finding.key.rfind("pools.", 0), std::string::npos) << finding.message;
    EXPECT_EQ(finding.key.rfind("topology.", 0), std::string::npos) << finding.message;
    EXPECT_EQ(finding.key.rfind("workloads.", 0), std::string::npos) << finding.message;
    EXPECT_EQ(finding.key.rfind("daemon.", 0), std::string::npos) << finding.message;
  }
  EXPECT_TRUE(check.ok());
}

TEST(MachineCheck, AFlagOverrideIsNamedByItsFlag) {
  TempDir dir("tierd-config-check");
  tier::test::write_text_file(dir.path() / "afile", "x\n");
  ConfigSource source;
  Config config = parse_config("", "test.toml", &source);
  config.topology_root = (kFixtures / "qemu-4node").string();
  config.socket = (dir.path() / "afile" / "t.sock").string();
  source.flags["daemon.socket"] = "--socket";
  config.state_path = (dir.path() / "s.json").string();
  const ConfigCheck check = check_config(config, source, tier::SysRoot(kFixtures / "qemu-4node"));
  ASSERT_EQ(check.errors().size(), 1u);
  EXPECT_EQ(check.errors()[0], "--socket '" + config.socket + "': " + dir.path().string() +
                                   "/afile is a file, expected a directory");
}

TEST(MachineCheck, AnUnwritableDirectoryIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into any directory";
  TempDir dir("tierd-config-check");
  fs::create_directory(dir.path() / "ro");
  fs::permissions(dir.path() / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  const ConfigCheck check =
      check_on_machine("[daemon]\nstate = \"" + (dir.path() / "ro" / "s.json").string() + "\"\n",
                       "qemu-4node", dir.path());
  fs::permissions(dir.path() / "ro", fs::perms::owner_all);
  ASSERT_FALSE(check.ok());
  EXPECT_NE(check.errors()[0].find("ro is not writable: EACCES"), std::string::npos)
      << check.errors()[0];
}

// ---- the tierd binary's flags ----------------------------------------------

struct FlagCase {
  const char* kind;
  std::vector<std::string> args;  // @TMP@ as above
  std::string message;            // on stderr
};

std::ostream& operator<<(std::ostream& out, const FlagCase& c) {
  out << c.kind;
  for (const std::string& arg : c.args) out << " '" << arg << "'";
  return out;
}

class TierdFlags : public ::testing::TestWithParam<FlagCase> {};

TEST_P(TierdFlags, ExitTwoNamingTheFlagAndStartNothing) {
  const FlagCase& c = GetParam();
  TempDir dir("tierd-flags");
  tier::test::write_text_file(dir.path() / "afile", "x\n");
  std::vector<std::string> argv = {std::string(TIER_BIN_DIR) + "/tierd"};
  for (const std::string& arg : c.args) argv.push_back(replace_all(arg, "@TMP@", dir.path()));
  // No exporter port claimed unless the case is about --metrics.
  if (std::find(c.args.begin(), c.args.end(), "--metrics") == c.args.end()) {
    argv.insert(argv.end(), {"--metrics", "off"});
  }
  const tier::test::CommandResult result = tier::test::run_command(argv);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find(replace_all(c.message, "@TMP@", dir.path())), std::string::npos)
      << result.err;
  EXPECT_EQ(result.out, "");
  // Nothing started: no socket, no state file.
  EXPECT_FALSE(fs::exists(dir.path() / "t.sock"));
  EXPECT_FALSE(fs::exists(dir.path() / "s.json"));
}

const std::vector<std::string> kPrivate = {"--socket", "@TMP@/t.sock", "--state", "@TMP@/s.json"};
std::vector<std::string> with_private(std::vector<std::string> args) {
  args.insert(args.end(), kPrivate.begin(), kPrivate.end());
  return args;
}

const std::vector<FlagCase> kFlags = {
    {kEmpty, with_private({"--config", ""}),
     "tierd: error: --config '': expected a file, got nothing"},
    {kEmpty, with_private({"--config", "", "--check-config"}),
     "tierd: error: --config '': expected a file, got nothing"},
    {kWrongKind, with_private({"--config", "@TMP@", "--check-config"}),
     "tierd: error: --config '@TMP@': is a directory, expected a file"},
    {kNonexistent, with_private({"--config", "@TMP@/tierd.toml", "--check-config"}),
     "tierd: error: --config '@TMP@/tierd.toml': no such file"},
    {kEmpty,
     {"--socket", "", "--state", "@TMP@/s.json"},
     "tierd: error: --socket '': expected a socket path, got nothing"},
    {kEmpty,
     {"--state", "", "--socket", "@TMP@/t.sock", "--check-config"},
     "tierd: error: --state '': expected a file path, got nothing"},
    {kEmpty, with_private({"--metrics", "", "--check-config"}),
     "tierd: error: --metrics '': expected ADDR:PORT or off, got nothing"},
    {kWrongKind,
     {"--socket", "@TMP@/afile", "--state", "@TMP@/s.json", "--check-config"},
     "tierd: error: --socket '@TMP@/afile': is a file, expected a socket"},
    {kWrongKind,
     {"--socket", "@TMP@/t.sock", "--state", "@TMP@", "--check-config"},
     "tierd: error: --state '@TMP@': is a directory, expected a file"},
};

INSTANTIATE_TEST_SUITE_P(CommandLine, TierdFlags, ::testing::ValuesIn(kFlags));

tier::test::CommandResult check_config_file(const fs::path& dir, const std::string& toml) {
  tier::test::write_text_file(dir / "tierd.toml", toml);
  return tier::test::run_command({std::string(TIER_BIN_DIR) + "/tierd", "--check-config",
                                  "--config", (dir / "tierd.toml").string(), "--socket",
                                  (dir / "t.sock").string(), "--state", (dir / "s.json").string()});
}

TEST(TierdCheckConfig, NamesTheFileItCheckedOrTheEmbeddedDefault) {
  TempDir dir("tierd-flags");
  tier::test::CommandResult result = check_config_file(dir.path(), "[policy]\ntick_ms = 250\n");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "tierd: configuration " + (dir.path() / "tierd.toml").string() + " is valid\n");
  result = tier::test::run_command({std::string(TIER_BIN_DIR) + "/tierd", "--check-config",
                                    "--socket", (dir.path() / "t.sock").string(), "--state",
                                    (dir.path() / "s.json").string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "tierd: the embedded default configuration is valid\n");
}

TEST(TierdCheckConfig, WarningsAreLoggedAtWarningLevelAndCounted) {
  TempDir dir("tierd-flags");
  const tier::test::CommandResult result =
      check_config_file(dir.path(), "[[workloads.watch]]\nparent = \"/sys/fs/cgroup/tier-none\"\n");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "tierd: configuration " + (dir.path() / "tierd.toml").string() +
                            " is valid, with 1 warning\n");
  EXPECT_NE(result.err.find("tierd: warn: " + (dir.path() / "tierd.toml").string() +
                            ":2: key 'workloads.watch[0].parent': no cgroup directory"),
            std::string::npos)
      << result.err;
}

TEST(TierdCheckConfig, MachineErrorsAreAllNamedWithExitTwo) {
  TempDir dir("tierd-flags");
  // Node 1023 is the highest id a kernel can have: no test machine has it.
  const tier::test::CommandResult result = check_config_file(
      dir.path(), "[pools]\nreserved = \"100000\"\n[topology]\ntier_override = { \"1023\" = 1 }\n");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.out, "");
  const std::string file = (dir.path() / "tierd.toml").string();
  EXPECT_NE(result.err.find("tierd: error: " + file +
                            ":4: key 'topology.tier_override.1023': no such NUMA node 1023 on "
                            "this machine (nodes: "),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("tierd: error: " + file +
                            ":2: key 'pools.reserved': no such CPU 100000 on this machine"),
            std::string::npos)
      << result.err;
}

// ---- the counts ------------------------------------------------------------

TEST(ConfigInputCounts, EveryClassIsFedAndTheCountsArePrinted) {
  std::map<std::string, std::map<std::string, int>> counts;  // class → table → cases
  const auto count = [&](const std::string& table, const auto& cases) {
    for (const auto& c : cases) ++counts[c.kind][table];
  };
  count("parse", kDaemon);
  count("parse", kMetrics);
  count("parse", kPolicy);
  count("parse", kKernel);
  count("parse", kPlacement);
  count("parse", kPools);
  count("parse", kSuppression);
  count("parse", kWorkloads);
  count("parse", kTopology);
  count("machine", kMachine);
  count("flags", kFlags);
  int total = 0;
  for (const char* kind : {kEmpty, kNegative, kHuge, kNonNumeric, kNonexistent, kWrongKind}) {
    int sum = 0;
    std::string line;
    for (const auto& [table, n] : counts[kind]) {
      line += " " + table + " " + std::to_string(n);
      sum += n;
    }
    std::cout << "[ counts   ] " << kind << ": " << sum << " (" << line.substr(1) << ")\n";
    EXPECT_GT(sum, 0) << kind;
    total += sum;
  }
  std::cout << "[ counts   ] total: " << total << "\n";
}

}  // namespace
}  // namespace tierd
