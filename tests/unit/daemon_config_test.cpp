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
  EXPECT_EQ(
      error_of("[topology]\ntier_override = { \"x\" = 1 }\n"),
      "test.toml:2: key 'topology.tier_override.x': expected \"NODE\" = RANK with non-negative "
      "integers");
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

TEST(DaemonConfig, UnreadableFileIsNamed) {
  try {
    load_config_file("/nonexistent/tierd.toml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/tierd.toml: cannot read configuration file");
  }
}

}  // namespace
}  // namespace tierd
