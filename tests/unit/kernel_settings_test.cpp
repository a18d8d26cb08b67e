// KernelSettings against a temporary /proc + /sys tree: what is written,
// what is remembered as the original, what restore puts back, and how a
// restart adopts the originals a crashed tierd left in state.json.
#include <boost/json.hpp>

#include <gtest/gtest.h>

#include "config.hpp"
#include "kernel_settings.hpp"
#include "test_support.hpp"

namespace tierd {
namespace {

using tier::test::read_text_file;
using tier::test::TempDir;
using tier::test::write_text_file;

class KernelSettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text_file(dir_.path() / "proc/sys/kernel/numa_balancing", "0\n");
    write_text_file(dir_.path() / "sys/kernel/mm/numa/demotion_enabled", "false\n");
  }
  std::string balancing() const {
    return read_text_file(dir_.path() / "proc/sys/kernel/numa_balancing");
  }
  std::string demotion() const {
    return read_text_file(dir_.path() / "sys/kernel/mm/numa/demotion_enabled");
  }
  TempDir dir_{"kernel-settings"};
  tier::SysRoot root() const { return tier::SysRoot(dir_.path()); }
};

TEST_F(KernelSettingsTest, KeepTouchesNothing) {
  KernelSettings settings(root());
  std::vector<std::string> log;
  EXPECT_TRUE(settings.apply(Config{}, &log).empty());
  EXPECT_TRUE(log.empty());
  EXPECT_TRUE(settings.changes().empty());
  EXPECT_EQ(balancing(), "0\n");
}

TEST_F(KernelSettingsTest, AppliesRemembersTheOriginalAndRestores) {
  KernelSettings settings(root());
  Config config;
  config.numa_balancing = 2;
  config.demotion_enabled = true;
  std::vector<std::string> log;
  EXPECT_TRUE(settings.apply(config, &log).empty());
  EXPECT_EQ(balancing(), "2\n");
  EXPECT_EQ(demotion(), "true\n");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "numa_balancing: 0 -> 2 (/proc/sys/kernel/numa_balancing)");
  EXPECT_EQ(settings.changes().at("numa_balancing").original, "0");

  // A second value keeps the first original.
  config.numa_balancing = 1;
  settings.apply(config);
  EXPECT_EQ(balancing(), "1\n");
  EXPECT_EQ(settings.changes().at("numa_balancing").original, "0");

  EXPECT_TRUE(settings.restore_all().empty());
  EXPECT_EQ(balancing(), "0\n");
  EXPECT_EQ(demotion(), "false\n");
  EXPECT_TRUE(settings.changes().empty());
}

TEST_F(KernelSettingsTest, BackToKeepOnReloadRestoresThatKnob) {
  KernelSettings settings(root());
  Config config;
  config.numa_balancing = 3;
  config.demotion_enabled = true;
  settings.apply(config);
  config.numa_balancing.reset();  // reload with "keep"
  settings.apply(config);
  EXPECT_EQ(balancing(), "0\n");
  EXPECT_EQ(demotion(), "true\n");
  EXPECT_EQ(settings.changes().count("numa_balancing"), 0u);
}

TEST_F(KernelSettingsTest, RestartAdoptsTheCrashedInstancesOriginals) {
  Config config;
  config.numa_balancing = 2;
  boost::json::object saved;
  {
    KernelSettings crashed(root());
    crashed.apply(config);
    saved = crashed.to_json();  // what state.json held; no restore: a crash
  }
  EXPECT_EQ(balancing(), "2\n");
  KernelSettings next(root());
  EXPECT_TRUE(next.adopt(saved).empty());
  next.apply(config);  // already 2: nothing new to remember
  EXPECT_EQ(next.changes().at("numa_balancing").original, "0");
  next.restore_all();
  EXPECT_EQ(balancing(), "0\n");
}

// The original is recorded (and saved by the daemon's hook) before the knob
// is written: what the hook sees is what state.json would hold if tierd were
// SIGKILLed right after the write. Only a first write calls it.
TEST_F(KernelSettingsTest, FirstWriteIsRecordedBeforeTheKnobChanges) {
  KernelSettings settings(root());
  std::vector<std::string> seen;
  settings.on_first_write([&] {
    boost::json::object saved = settings.to_json();
    seen.push_back(boost::json::serialize(saved) + " knob=" + balancing());
  });
  Config config;
  config.numa_balancing = 2;
  settings.apply(config);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0],
            R"({"numa_balancing":{"path":"/proc/sys/kernel/numa_balancing","original":"0",)"
            R"("applied":"2"}} knob=0)"
            "\n");
  EXPECT_EQ(balancing(), "2\n");
  config.numa_balancing = 1;  // a later value keeps the recorded original
  settings.apply(config);
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(balancing(), "1\n");
}

TEST_F(KernelSettingsTest, MissingKnobAndMalformedStateAreReportedNotThrown) {
  std::filesystem::remove(dir_.path() / "sys/kernel/mm/numa/demotion_enabled");
  KernelSettings settings(root());
  Config config;
  config.demotion_enabled = true;
  std::vector<std::string> problems = settings.apply(config);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("demotion_enabled: /sys/kernel/mm/numa/demotion_enabled is not "
                             "readable on this kernel"),
            std::string::npos)
      << problems[0];
  problems = settings.adopt(boost::json::parse(R"({"numa_balancing":{"path":3}})"));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("malformed"), std::string::npos);
}

// kernel_tiering = "own": tierd decides every move, so the kernel's promotion
// (NUMA balancing) and demotion are off while it runs, and back afterwards.
TEST_F(KernelSettingsTest, OwnTurnsKernelTieringOffAndRestoresIt) {
  write_text_file(dir_.path() / "proc/sys/kernel/numa_balancing", "2\n");
  write_text_file(dir_.path() / "sys/kernel/mm/numa/demotion_enabled", "true\n");
  KernelSettings settings(root());
  Config own;
  own.kernel_tiering = KernelTiering::own;
  EXPECT_TRUE(settings.apply(own).empty());
  EXPECT_EQ(balancing(), "0\n");
  EXPECT_EQ(demotion(), "false\n");
  // A reload to coexist gives the kernel its own settings back.
  Config coexist;
  coexist.kernel_tiering = KernelTiering::coexist;
  EXPECT_TRUE(settings.apply(coexist).empty());
  EXPECT_EQ(balancing(), "2\n");
  EXPECT_EQ(demotion(), "true\n");
  EXPECT_TRUE(settings.changes().empty());
}

// With the hint-fault source the scan must run: mode 2 with a promotion rate
// limit of 0 (which holds kernel promotion off while the fast node is short of
// free memory), restored at stop.
TEST_F(KernelSettingsTest, OwnWithHintFaultsScansWithPromotionRateLimitZero) {
  const auto rate = dir_.path() / "proc/sys/kernel/numa_balancing_promote_rate_limit_MBps";
  write_text_file(rate, "65536\n");
  KernelSettings settings(root());
  Config own;
  own.kernel_tiering = KernelTiering::own;
  own.heat_source = "bpf-fault";
  EXPECT_TRUE(settings.apply(own).empty());
  EXPECT_EQ(balancing(), "2\n");
  EXPECT_EQ(read_text_file(rate), "0\n");
  EXPECT_EQ(demotion(), "false\n");
  EXPECT_TRUE(settings.restore_all().empty());
  EXPECT_EQ(balancing(), "0\n");
  EXPECT_EQ(read_text_file(rate), "65536\n");
}

}  // namespace
}  // namespace tierd
