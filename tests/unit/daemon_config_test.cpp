#include <gtest/gtest.h>

#include "config.hpp"

namespace tierd {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_config(text, "test.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(DaemonConfig, EmbeddedDefaultParses) {
  Config config = parse_config(embedded_default_config(), "<embedded>");
  EXPECT_EQ(config.socket, "/run/tier/tierd.sock");
  EXPECT_EQ(config.topology_root, "/");
  EXPECT_TRUE(config.tier_override.empty());
}

TEST(DaemonConfig, ReadsOverrides) {
  Config config = parse_config("[topology]\ntier_override = { \"2\" = 1, \"3\" = 2 }\n", "t");
  EXPECT_EQ(config.tier_override, (std::map<unsigned, unsigned>{{2, 1}, {3, 2}}));
}

TEST(DaemonConfig, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of("[daemon]\nsocket = \"/x\"\nbogus = 1\n"),
            "test.toml:3: key 'daemon.bogus': unknown key");
  EXPECT_EQ(error_of("[daemon]\nlog_level = \"loud\"\n"),
            "test.toml:2: key 'daemon.log_level': expected one of error, warn, info, debug");
  EXPECT_EQ(error_of("[daemon]\nsocket = 5\n"),
            "test.toml:2: key 'daemon.socket': expected a string");
  EXPECT_EQ(error_of("[topology]\ntier_override = { \"x\" = 1 }\n"),
            "test.toml:2: key 'topology.tier_override.x': node id: expected an integer from 0 to "
            "1023");
  EXPECT_NE(error_of("[daemon\n").find("test.toml:1: "), std::string::npos);
}

// Found while fuzzing the parser: ids with signs or spaces, and numbers past
// 32 bits that used to wrap to node 0 / rank 0.
TEST(DaemonConfig, TierOverrideRejectsSignedSpacedAndOverflowingNumbers) {
  for (const char* id : {"-1", " 1", "+1", "1 ", "4294967296"}) {
    EXPECT_NE(error_of(std::string("[topology]\ntier_override = { \"") + id + "\" = 1 }\n"), "")
        << "node id '" << id << "' accepted";
  }
  EXPECT_NE(error_of("[topology]\ntier_override = { \"2\" = 4294967296 }\n"), "");
  EXPECT_NE(error_of("[topology]\ntier_override = { \"2\" = -1 }\n"), "");
}

TEST(DaemonConfig, PlacementDefaultsToCoexistWithAutomaticHeat) {
  Config config = parse_config(embedded_default_config(), "<embedded>");
  EXPECT_EQ(config.kernel_tiering, KernelTiering::coexist);
  EXPECT_EQ(config.heat_source, "auto");
  Config own =
      parse_config("[placement]\nkernel_tiering = \"own\"\nheat_source = \"damon\"\n", "t");
  EXPECT_EQ(own.kernel_tiering, KernelTiering::own);
  EXPECT_EQ(own.heat_source, "damon");
}

TEST(DaemonConfig, RulesAndWatchesCarryAMigrationBudget) {
  Config config = parse_config(
      "[[workloads.rule]]\nmatch = \"redis\"\nbudget_mbps = 100\n"
      "[[workloads.watch]]\nparent = \"/sys/fs/cgroup/batch\"\n",
      "t");
  EXPECT_EQ(config.rules.at(0).budget_mbps, 100u);
  EXPECT_EQ(config.watches.at(0).budget_mbps, 0u);
  EXPECT_EQ(
      error_of("[[workloads.rule]]\nmatch = \"x\"\nbudget_mbps = -1\n"),
      "test.toml:3: key 'workloads.rule[0].budget_mbps': expected an integer from 0 to 100000");
}

TEST(DaemonConfig, PlacementErrorsNameTheKey) {
  EXPECT_EQ(error_of("[placement]\nkernel_tiering = \"mine\"\n"),
            "test.toml:2: key 'placement.kernel_tiering': expected \"own\", \"coexist\" or "
            "\"observe\"");
  EXPECT_NE(error_of("[placement]\nheat_source = \"crystal-ball\"\n")
                .find("test.toml:2: key 'placement.heat_source': unknown heat source "
                      "'crystal-ball' (sources: auto, off, "),
            std::string::npos);
  // `own` writes the kernel's tiering knobs itself: a [kernel] value beside it
  // would silently lose, so the combination is refused.
  EXPECT_EQ(error_of("[kernel]\nnuma_balancing = 2\n[placement]\nkernel_tiering = \"own\"\n"),
            "test.toml:4: key 'placement.kernel_tiering': \"own\" sets kernel.numa_balancing and "
            "kernel.demotion_enabled itself; leave them \"keep\" or use \"coexist\"");
  EXPECT_EQ(error_of("[kernel]\nnuma_balancing = 2\n[placement]\nkernel_tiering = \"coexist\"\n"),
            "");
}

TEST(DaemonConfig, PoolsAndSuppressionReadAndRefuseBadValuesByKey) {
  const Config config = parse_config(
      "[pools]\nenabled = true\nreserved = \"0\"\nplacement = \"spread\"\n"
      "[suppression]\nenabled = true\ncpu_threshold = 0.8\ncpu_restore = 0.6\n"
      "restore_delay_s = 2\n[workloads]\nkubepods = \"/sys/fs/cgroup/kubepods.slice\"\n",
      "test.toml");
  EXPECT_TRUE(config.pools.enabled);
  EXPECT_EQ(config.pools.reserved, "0");
  EXPECT_EQ(config.pools.placement, "spread");
  EXPECT_TRUE(config.suppression.enabled);
  EXPECT_DOUBLE_EQ(config.suppression.cpu_threshold, 0.8);
  EXPECT_DOUBLE_EQ(config.suppression.restore_delay_s, 2);
  EXPECT_EQ(config.kubepods, "/sys/fs/cgroup/kubepods.slice");

  EXPECT_EQ(error_of("[pools]\nbackend = \"cgroup-v3\"\n"),
            "test.toml:2: key 'pools.backend': expected \"auto\", \"cgroup-v2\", \"cgroup-v1\" or "
            "\"affinity\"");
  EXPECT_EQ(error_of("[pools]\nreserved = \"0-\"\n"),
            "test.toml:2: key 'pools.reserved': expected a CPU list like \"0\" or \"0-1,8\"");
  EXPECT_EQ(error_of("[pools]\nparent = \"a/b\"\n"),
            "test.toml:2: key 'pools.parent': expected one cgroup directory name, like \"tier\"");
  EXPECT_EQ(
      error_of("[[workloads.rule]]\nmatch = \"x\"\npool = \"exclusive:0\"\n"),
      "test.toml:3: key 'workloads.rule[0].pool': pool \"exclusive:0\": K must be at least 1");
  EXPECT_EQ(error_of("[suppression]\ncpu_threshold = 0.5\ncpu_restore = 0.6\n"),
            "test.toml:3: key 'suppression.cpu_restore': cpu_restore must not be above "
            "cpu_threshold (the gap is the hysteresis)");
  EXPECT_EQ(error_of("[suppression]\ncpu_threshold = 2\n"),
            "test.toml:2: key 'suppression.cpu_threshold': expected a number from 0.01 to 1");
  EXPECT_EQ(error_of("[workloads]\nkubepods = \"kubepods.slice\"\n"),
            "test.toml:2: key 'workloads.kubepods': expected an absolute cgroup directory path or "
            "\"\"");
}

TEST(DaemonConfig, MissingFileOrDirectoryIsNamedWithItsFlag) {
  const auto error_loading = [](const std::string& path) {
    try {
      load_config_file(path);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_loading("/nonexistent/tierd.toml"),
            "--config '/nonexistent/tierd.toml': no such file");
  // A directory opens and reads as an empty file: it once validated as the
  // defaults.
  EXPECT_EQ(error_loading("/"), "--config '/': is a directory, expected a file");
  EXPECT_EQ(error_loading(""), "--config '': expected a file, got nothing");
}

}  // namespace
}  // namespace tierd
