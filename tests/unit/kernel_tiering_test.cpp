// Kernel tiering detection: fixture trees built here (mode bits, rate limit,
// debugfs knobs, demotion, DAMON kdamonds and schemes, interleave weights,
// nothing at all, garbage), one live read of this machine's
// numa_balancing, and `tierctl doctor --json` carrying the object.
#include "tier/kernel_tiering/kernel_tiering.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace tier {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using test::TempDir;

// A root with files declared as {kernel path, contents}.
class Tree {
 public:
  Tree& file(const std::string& kernel_path, const std::string& text) {
    test::write_text_file(dir_.path() / kernel_path.substr(1), text + "\n");
    return *this;
  }
  Tree& dir(const std::string& kernel_path) {
    fs::create_directories(dir_.path() / kernel_path.substr(1));
    return *this;
  }
  SysRoot root() const { return SysRoot(dir_.path()); }
  KernelTiering read() const { return read_kernel_tiering(root()); }

 private:
  TempDir dir_{"tier-kt"};
};

constexpr const char* kNb = "/proc/sys/kernel/numa_balancing";
constexpr const char* kLimit = "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps";
constexpr const char* kDebugNb = "/sys/kernel/debug/sched/numa_balancing";
constexpr const char* kDemotion = "/sys/kernel/mm/numa/demotion_enabled";
constexpr const char* kKdamonds = "/sys/kernel/mm/damon/admin/kdamonds";
constexpr const char* kWi = "/sys/kernel/mm/mempolicy/weighted_interleave";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- NUMA balancing ----

class ModeDecoding : public ::testing::TestWithParam<unsigned> {};

TEST_P(ModeDecoding, BitsGiveNormalAndMemoryTiering) {
  const unsigned mode = GetParam();
  Tree tree;
  tree.file(kNb, std::to_string(mode));
  KernelTiering kt = tree.read();
  ASSERT_TRUE(kt.numa_balancing.mode.value) << kt.numa_balancing.mode.why_not;
  EXPECT_EQ(*kt.numa_balancing.mode.value, mode);
  EXPECT_EQ(kt.numa_balancing.normal(), (mode & 1) != 0);
  EXPECT_EQ(kt.numa_balancing.memory_tiering(), (mode & 2) != 0);
  EXPECT_EQ(kt.kernel_promotes(), (mode & 2) != 0);
  auto doc = kernel_tiering_json(kt);
  EXPECT_EQ(doc.at("numa_balancing").at("mode").to_number<unsigned>(), mode);
  EXPECT_EQ(doc.at("numa_balancing").at("memory_tiering").as_bool(), (mode & 2) != 0);
  EXPECT_EQ(doc.at("summary").at("kernel_promotes").as_bool(), (mode & 2) != 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, ModeDecoding, ::testing::Values(0u, 1u, 2u, 3u));

TEST(KernelTiering, PromoteRateLimit) {
  Tree tree;
  tree.file(kNb, "2").file(kLimit, "65536");
  KernelTiering kt = tree.read();
  ASSERT_TRUE(kt.numa_balancing.promote_rate_limit_mbps.value);
  EXPECT_EQ(*kt.numa_balancing.promote_rate_limit_mbps.value, 65536u);
  EXPECT_TRUE(kt.numa_balancing.promote_rate_limit_mbps.why_not.empty());
}

TEST(KernelTiering, NoRateLimitFileMeansNoMemoryTieringMode) {
  Tree tree;
  tree.file(kNb, "1");
  KernelTiering kt = tree.read();
  EXPECT_FALSE(kt.numa_balancing.promote_rate_limit_mbps.value);
  EXPECT_TRUE(contains(kt.numa_balancing.promote_rate_limit_mbps.why_not,
                       "kernel has no memory tiering mode"))
      << kt.numa_balancing.promote_rate_limit_mbps.why_not;
}

TEST(KernelTiering, HotThresholdAndScannerKnobsFromDebugfs) {
  Tree tree;
  tree.file(kNb, "2")
      .file(std::string(kDebugNb) + "/hot_threshold_ms", "1000")
      .file(std::string(kDebugNb) + "/scan_delay_ms", "100")
      .file(std::string(kDebugNb) + "/scan_period_min_ms", "200")
      .file(std::string(kDebugNb) + "/scan_period_max_ms", "500")
      .file(std::string(kDebugNb) + "/scan_size_mb", "1024");
  KernelTiering kt = tree.read();
  const NumaBalancing& nb = kt.numa_balancing;
  ASSERT_TRUE(nb.hot_threshold_ms.value) << nb.hot_threshold_ms.why_not;
  EXPECT_EQ(*nb.hot_threshold_ms.value, 1000u);
  EXPECT_EQ(nb.scan_delay_ms.value, 100u);
  EXPECT_EQ(nb.scan_period_min_ms.value, 200u);
  EXPECT_EQ(nb.scan_period_max_ms.value, 500u);
  EXPECT_EQ(nb.scan_size_mb.value, 1024u);
  auto doc = kernel_tiering_json(kt);
  EXPECT_EQ(doc.at("numa_balancing").at("hot_threshold_ms").to_number<unsigned>(), 1000u);
  EXPECT_FALSE(doc.at("numa_balancing").at("why_not").as_object().contains("hot_threshold_ms"));
}

TEST(KernelTiering, HotThresholdAbsentBecauseDebugfsIsNotMounted) {
  Tree tree;
  tree.file(kNb, "2").dir("/sys/kernel/debug");
  KernelTiering kt = tree.read();
  EXPECT_FALSE(kt.numa_balancing.hot_threshold_ms.value);
  EXPECT_TRUE(contains(kt.numa_balancing.hot_threshold_ms.why_not, "debugfs not mounted"))
      << kt.numa_balancing.hot_threshold_ms.why_not;
  auto doc = kernel_tiering_json(kt);
  EXPECT_TRUE(doc.at("numa_balancing").at("hot_threshold_ms").is_null());
  EXPECT_TRUE(contains(
      std::string(doc.at("numa_balancing").at("why_not").at("hot_threshold_ms").as_string()),
      "debugfs not mounted"));
}

TEST(KernelTiering, HotThresholdAbsentAccordingToTheMountTable) {
  // debugfs mounted elsewhere than /sys/kernel/debug does not count.
  Tree tree;
  tree.file("/proc/self/mountinfo",
            "22 1 0:21 / /sys rw - sysfs sysfs rw\n"
            "30 22 0:7 / /mnt/dbg rw - debugfs debugfs rw")
      .file("/sys/kernel/debug/stale", "x");
  KernelTiering kt = tree.read();
  EXPECT_EQ(kt.numa_balancing.hot_threshold_ms.why_not, "debugfs not mounted at /sys/kernel/debug");
}

TEST(KernelTiering, HotThresholdAbsentFromAMountedDebugfs) {
  Tree tree;
  tree.file("/proc/self/mountinfo", "30 22 0:7 / /sys/kernel/debug rw - debugfs debugfs rw")
      .file(std::string(kDebugNb) + "/scan_delay_ms", "1000");
  KernelTiering kt = tree.read();
  EXPECT_TRUE(contains(kt.numa_balancing.hot_threshold_ms.why_not, "no hot_threshold_ms"))
      << kt.numa_balancing.hot_threshold_ms.why_not;
  EXPECT_EQ(kt.numa_balancing.scan_delay_ms.value, 1000u);

  Tree no_sched;
  no_sched.file("/proc/self/mountinfo", "30 22 0:7 / /sys/kernel/debug rw - debugfs debugfs rw")
      .dir("/sys/kernel/debug/tracing");
  EXPECT_TRUE(contains(no_sched.read().numa_balancing.hot_threshold_ms.why_not, "no sched/"));
}

TEST(KernelTiering, OldKernelScannerSysctls) {
  // Before 5.13 the scanner knobs were sysctls; no debugfs is needed then.
  Tree tree;
  tree.file(kNb, "1").file("/proc/sys/kernel/numa_balancing_scan_delay_ms", "1000");
  KernelTiering kt = tree.read();
  EXPECT_EQ(kt.numa_balancing.scan_delay_ms.value, 1000u);
  EXPECT_FALSE(kt.numa_balancing.scan_size_mb.value);
}

// ---- demotion ----

TEST(KernelTiering, DemotionOnAndOff) {
  for (const auto& [text, on] : {std::pair{"true", true}, std::pair{"false", false}}) {
    Tree tree;
    tree.file(kDemotion, text);
    KernelTiering kt = tree.read();
    ASSERT_TRUE(kt.demotion_enabled.value) << kt.demotion_enabled.why_not;
    EXPECT_EQ(*kt.demotion_enabled.value, on);
    EXPECT_EQ(kt.kernel_demotes(), on);
    EXPECT_EQ(kernel_tiering_json(kt).at("demotion").at("enabled").as_bool(), on);
  }
}

// ---- DAMON ----

// Two kdamonds: 0 runs a paddr context with migrate_hot -> node 0 and
// migrate_cold -> node 2 schemes, 1 is off (with a pageout scheme that must
// not count) and has a vaddr target.
void damon_tree(Tree& tree) {
  const std::string k0 = std::string(kKdamonds) + "/0";
  tree.file(std::string(kKdamonds) + "/nr_kdamonds", "2")
      .file(k0 + "/state", "on")
      .file(k0 + "/pid", "4242")
      .file(k0 + "/contexts/nr_contexts", "1")
      .file(k0 + "/contexts/0/operations", "paddr")
      .file(k0 + "/contexts/0/targets/nr_targets", "1")
      .file(k0 + "/contexts/0/targets/0/pid_target", "0")
      .file(k0 + "/contexts/0/schemes/nr_schemes", "2")
      .file(k0 + "/contexts/0/schemes/0/action", "migrate_hot")
      .file(k0 + "/contexts/0/schemes/0/target_nid", "0")
      .file(k0 + "/contexts/0/schemes/0/apply_interval_us", "0")
      .file(k0 + "/contexts/0/schemes/0/quotas/bytes", "134217728")
      .file(k0 + "/contexts/0/schemes/0/quotas/ms", "0")
      .file(k0 + "/contexts/0/schemes/0/stats/nr_applied", "7")
      .file(k0 + "/contexts/0/schemes/0/stats/sz_applied", "28672")
      .file(k0 + "/contexts/0/schemes/1/action", "migrate_cold")
      .file(k0 + "/contexts/0/schemes/1/target_nid", "2")
      .file(k0 + "/contexts/0/schemes/1/apply_interval_us", "1000000");
  const std::string k1 = std::string(kKdamonds) + "/1";
  tree.file(k1 + "/state", "off")
      .file(k1 + "/pid", "-1")
      .file(k1 + "/contexts/0/operations", "vaddr")
      .file(k1 + "/contexts/0/targets/0/pid_target", "1234")
      .file(k1 + "/contexts/0/schemes/0/action", "pageout");
}

TEST(KernelTiering, DamonKdamondsAndSchemes) {
  Tree tree;
  damon_tree(tree);
  KernelTiering kt = tree.read();
  ASSERT_TRUE(kt.damon.sysfs) << kt.damon.why_not;
  ASSERT_EQ(kt.damon.kdamonds.size(), 2u);
  const Kdamond& k0 = kt.damon.kdamonds[0];
  EXPECT_TRUE(k0.running());
  EXPECT_EQ(k0.pid, 4242);
  ASSERT_EQ(k0.contexts.size(), 1u);
  EXPECT_EQ(k0.contexts[0].operations.value, "paddr");
  EXPECT_TRUE(k0.contexts[0].target_pids.empty());  // paddr: pid_target 0 is no pid
  ASSERT_EQ(k0.contexts[0].schemes.size(), 2u);
  const DamonScheme& hot = k0.contexts[0].schemes[0];
  EXPECT_EQ(hot.action.value, "migrate_hot");
  EXPECT_EQ(hot.effect(), DamonEffect::migrate);
  EXPECT_EQ(hot.target_nid, 0);
  EXPECT_EQ(hot.quota_bytes, 134217728u);
  EXPECT_EQ(hot.sz_applied, 28672u);
  const DamonScheme& cold = k0.contexts[0].schemes[1];
  EXPECT_EQ(cold.action.value, "migrate_cold");
  EXPECT_EQ(cold.target_nid, 2);
  EXPECT_EQ(cold.apply_interval_us, 1000000u);

  const Kdamond& k1 = kt.damon.kdamonds[1];
  EXPECT_FALSE(k1.running());
  EXPECT_FALSE(k1.pid);
  EXPECT_EQ(k1.contexts[0].target_pids, std::vector<long>{1234});
  EXPECT_EQ(k1.contexts[0].schemes[0].effect(), DamonEffect::reclaim);

  // Only the running kdamond's schemes count.
  EXPECT_TRUE(kt.damon_acts());
  EXPECT_EQ(kt.damon_acting_schemes(),
            (std::vector<std::string>{"kdamond 0 context 0 scheme 0: migrate_hot -> node 0",
                                      "kdamond 0 context 0 scheme 1: migrate_cold -> node 2"}));

  auto doc = kernel_tiering_json(kt);
  const auto& jk = doc.at("damon").at("kdamonds").as_array();
  ASSERT_EQ(jk.size(), 2u);
  EXPECT_EQ(jk[0].at("state").as_string(), "on");
  EXPECT_TRUE(jk[0].at("running").as_bool());
  EXPECT_EQ(jk[0].at("pid").to_number<long>(), 4242);
  const auto& js = jk[0].at("contexts").at(0).at("schemes").as_array();
  EXPECT_EQ(js[1].at("action").as_string(), "migrate_cold");
  EXPECT_EQ(js[1].at("target_nid").to_number<int>(), 2);
  EXPECT_EQ(js[1].at("effect").as_string(), "migrate");
  EXPECT_FALSE(jk[1].at("running").as_bool());
  EXPECT_TRUE(jk[1].at("pid").is_null());
  EXPECT_TRUE(doc.at("summary").at("damon_acts").as_bool());
  EXPECT_EQ(doc.at("summary").at("damon_acting_schemes").as_array().size(), 2u);
}

TEST(KernelTiering, DamonOnlyStatSchemesDoNotMigrate) {
  Tree tree;
  const std::string k0 = std::string(kKdamonds) + "/0";
  tree.file(k0 + "/state", "on")
      .file(k0 + "/contexts/0/operations", "vaddr")
      .file(k0 + "/contexts/0/schemes/0/action", "stat");
  KernelTiering kt = tree.read();
  EXPECT_FALSE(kt.damon_acts());
  EXPECT_FALSE(kt.damon.kdamonds[0].contexts[0].schemes[0].target_nid);  // pre-6.11
}

TEST(KernelTiering, DamonMigrationDestinations) {
  // Newer kernels (6.18 here) let a scheme list weighted destinations (dests/N).
  Tree tree;
  const std::string s = std::string(kKdamonds) + "/0/contexts/0/schemes/0";
  tree.file(std::string(kKdamonds) + "/0/state", "on")
      .file(s + "/action", "migrate_cold")
      .file(s + "/target_nid", "-1")
      .file(s + "/dests/nr_dests", "2")
      .file(s + "/dests/0/id", "2")
      .file(s + "/dests/0/weight", "3")
      .file(s + "/dests/1/id", "3")
      .file(s + "/dests/1/weight", "1");
  KernelTiering kt = tree.read();
  const DamonScheme& scheme = kt.damon.kdamonds[0].contexts[0].schemes[0];
  ASSERT_EQ(scheme.dests.size(), 2u);
  EXPECT_EQ(scheme.dests[1].node, 3);
  EXPECT_EQ(scheme.dests[0].weight, 3u);
  EXPECT_EQ(
      kt.damon_acting_schemes(),
      std::vector<std::string>{
          "kdamond 0 context 0 scheme 0: migrate_cold -> node 2 (weight 3) node 3 (weight 1)"});
}

TEST(KernelTiering, DamonModules) {
  Tree tree;
  tree.dir("/sys/kernel/mm/damon/admin/kdamonds")
      .file("/sys/module/damon_reclaim/parameters/enabled", "Y")
      .file("/sys/module/damon_reclaim/parameters/kdamond_pid", "99")
      .file("/sys/module/damon_lru_sort/parameters/enabled", "N");
  KernelTiering kt = tree.read();
  ASSERT_EQ(kt.damon.modules.size(), 2u);
  EXPECT_EQ(kt.damon.modules[0].name, "damon_reclaim");
  EXPECT_EQ(kt.damon.modules[0].enabled.value, true);
  EXPECT_EQ(kt.damon.modules[0].kdamond_pid, 99);
  EXPECT_EQ(kt.damon.modules[1].name, "damon_lru_sort");
  EXPECT_EQ(kt.damon.modules[1].enabled.value, false);
  EXPECT_TRUE(kt.damon_acts());
  EXPECT_EQ(kt.damon_acting_schemes(), std::vector<std::string>{"module damon_reclaim: reclaim"});
}

// ---- weighted interleave ----

TEST(KernelTiering, WeightedInterleaveWeights) {
  Tree tree;
  tree.file(std::string(kWi) + "/node0", "3")
      .file(std::string(kWi) + "/node1", "3")
      .file(std::string(kWi) + "/node2", "1")
      .file(std::string(kWi) + "/node10", "1")
      .file(std::string(kWi) + "/auto", "false");
  KernelTiering kt = tree.read();
  const WeightedInterleave& wi = kt.weighted_interleave;
  ASSERT_TRUE(wi.available) << wi.why_not;
  ASSERT_EQ(wi.weights.size(), 4u);
  EXPECT_EQ(wi.weights[0].first, 0u);
  EXPECT_EQ(wi.weights[0].second.value, 3u);
  EXPECT_EQ(wi.weights[2].first, 2u);
  EXPECT_EQ(wi.weights[2].second.value, 1u);
  EXPECT_EQ(wi.weights[3].first, 10u);  // numeric order, not "node10" < "node2"
  EXPECT_EQ(wi.auto_file, "auto");
  EXPECT_EQ(wi.auto_mode.value, false);
  auto doc = kernel_tiering_json(kt);
  EXPECT_EQ(doc.at("weighted_interleave").at("weights").at("2").to_number<unsigned>(), 1u);
  EXPECT_FALSE(doc.at("weighted_interleave").at("auto").as_bool());
}

TEST(KernelTiering, WeightedInterleaveAutoSwitchUnderAnotherName) {
  // The build machine's 6.18 names the switch __auto_type.
  Tree tree;
  tree.file(std::string(kWi) + "/node0", "1").file(std::string(kWi) + "/__auto_type", "true");
  KernelTiering kt = tree.read();
  EXPECT_EQ(kt.weighted_interleave.auto_file, "__auto_type");
  EXPECT_EQ(kt.weighted_interleave.auto_mode.value, true);
}

// ---- nothing, and garbage ----

TEST(KernelTiering, MissingEverythingGivesReasonsForAll) {
  Tree tree;
  tree.dir("/proc");
  KernelTiering kt = tree.read();
  const NumaBalancing& nb = kt.numa_balancing;
  for (const auto* p : {&nb.promote_rate_limit_mbps, &nb.hot_threshold_ms, &nb.scan_delay_ms,
                        &nb.scan_period_min_ms, &nb.scan_period_max_ms, &nb.scan_size_mb}) {
    EXPECT_FALSE(p->value);
    EXPECT_FALSE(p->why_not.empty());
  }
  EXPECT_FALSE(nb.mode.value);
  EXPECT_TRUE(contains(nb.mode.why_not, "no /proc/sys/kernel/numa_balancing")) << nb.mode.why_not;
  EXPECT_TRUE(contains(nb.hot_threshold_ms.why_not, "debugfs not mounted"));
  EXPECT_FALSE(kt.demotion_enabled.value);
  EXPECT_TRUE(contains(kt.demotion_enabled.why_not, "demotion_enabled"));
  EXPECT_FALSE(kt.damon.sysfs);
  EXPECT_TRUE(contains(kt.damon.why_not, "CONFIG_DAMON_SYSFS"));
  EXPECT_TRUE(kt.damon.kdamonds.empty());
  EXPECT_TRUE(kt.damon.modules.empty());
  EXPECT_FALSE(kt.weighted_interleave.available);
  EXPECT_TRUE(contains(kt.weighted_interleave.why_not, "6.9"));
  EXPECT_FALSE(kt.kernel_promotes());
  EXPECT_FALSE(kt.kernel_demotes());
  EXPECT_FALSE(kt.damon_acts());

  auto doc = kernel_tiering_json(kt);
  const auto& why = doc.at("numa_balancing").at("why_not").as_object();
  for (const char* key : {"mode", "promote_rate_limit_mbps", "hot_threshold_ms", "scan_delay_ms",
                          "scan_period_min_ms", "scan_period_max_ms", "scan_size_mb"}) {
    EXPECT_TRUE(doc.at("numa_balancing").at(key).is_null()) << key;
    EXPECT_TRUE(why.contains(key)) << key;
  }
  EXPECT_TRUE(doc.at("demotion").at("why_not").as_object().contains("enabled"));
  EXPECT_TRUE(doc.at("damon").at("why_not").as_object().contains("sysfs"));
  EXPECT_TRUE(doc.at("weighted_interleave").at("why_not").as_object().contains("weights"));

  std::ostringstream text;
  print_kernel_tiering(text, kt);
  EXPECT_TRUE(contains(text.str(), "numa_balancing        unknown: no /proc/sys/kernel/"))
      << text.str();
  EXPECT_TRUE(contains(text.str(), "DAMON acts on pages: no")) << text.str();
}

TEST(KernelTiering, GarbageValuesBecomeWhyNotText) {
  Tree tree;
  const std::string k0 = std::string(kKdamonds) + "/0";
  tree.file(kNb, "lots")
      .file(kLimit, "-5")
      .file(std::string(kDebugNb) + "/hot_threshold_ms", "1000ms")
      .file(std::string(kDebugNb) + "/scan_size_mb", "")
      .file(kDemotion, "maybe")
      .file(k0 + "/state", "on\xff")
      .file(k0 + "/pid", "abc")
      .file(k0 + "/contexts/0/operations", "paddr")
      .file(k0 + "/contexts/0/schemes/0/action", "migrate cold!")
      .file(k0 + "/contexts/0/schemes/0/target_nid", "two")
      .file(std::string(kWi) + "/node0", "heavy")
      .file(std::string(kWi) + "/auto", "perhaps")
      .file("/sys/module/damon_reclaim/parameters/enabled", "sure");
  KernelTiering kt;
  ASSERT_NO_THROW(kt = tree.read());
  const NumaBalancing& nb = kt.numa_balancing;
  EXPECT_FALSE(nb.mode.value);
  EXPECT_EQ(nb.mode.why_not, "/proc/sys/kernel/numa_balancing: cannot parse 'lots'");
  EXPECT_TRUE(contains(nb.promote_rate_limit_mbps.why_not, "cannot parse '-5'"));
  EXPECT_TRUE(contains(nb.hot_threshold_ms.why_not, "cannot parse '1000ms'"));
  EXPECT_TRUE(contains(nb.scan_size_mb.why_not, "cannot parse ''"));
  EXPECT_TRUE(contains(kt.demotion_enabled.why_not, "cannot parse 'maybe'"));
  ASSERT_EQ(kt.damon.kdamonds.size(), 1u);
  EXPECT_FALSE(kt.damon.kdamonds[0].state.value);
  EXPECT_FALSE(kt.damon.kdamonds[0].running());
  EXPECT_FALSE(kt.damon.kdamonds[0].pid);
  const DamonScheme& s = kt.damon.kdamonds[0].contexts[0].schemes[0];
  EXPECT_TRUE(contains(s.action.why_not, "cannot parse 'migrate cold!'"));
  EXPECT_FALSE(s.target_nid);
  EXPECT_FALSE(kt.weighted_interleave.weights.at(0).second.value);
  EXPECT_TRUE(contains(kt.weighted_interleave.weights.at(0).second.why_not, "cannot parse"));
  EXPECT_EQ(kt.weighted_interleave.auto_file, "auto");
  EXPECT_TRUE(contains(kt.weighted_interleave.auto_mode.why_not, "cannot parse 'perhaps'"));
  EXPECT_TRUE(contains(kt.damon.modules.at(0).enabled.why_not, "cannot parse 'sure'"));
  EXPECT_FALSE(kt.kernel_promotes());
  EXPECT_FALSE(kt.kernel_demotes());
  EXPECT_FALSE(kt.damon_acts());

  // Both renderings cope with every value absent.
  json::object doc;
  ASSERT_NO_THROW(doc = kernel_tiering_json(kt));
  EXPECT_TRUE(doc.at("weighted_interleave").at("weights").at("0").is_null());
  EXPECT_TRUE(doc.at("weighted_interleave").at("why_not").as_object().contains("node0"));
  std::ostringstream text;
  ASSERT_NO_THROW(print_kernel_tiering(text, kt));
  EXPECT_TRUE(contains(text.str(), "cannot parse 'lots'")) << text.str();
}

TEST(KernelTiering, UnreadableFileSaysErrno) {
  // Root reads even a mode-000 file, so the errno path is tested with a
  // directory where a file is expected (read() fails with EISDIR).
  Tree tree;
  tree.dir(kDemotion);
  KernelTiering kt = tree.read();
  EXPECT_TRUE(contains(kt.demotion_enabled.why_not, "EISDIR")) << kt.demotion_enabled.why_not;
}

TEST(KernelTiering, ParsersAcceptOnlyKernelForms) {
  EXPECT_EQ(parse_kernel_int("-1"), -1);
  EXPECT_EQ(parse_kernel_int(" 42"), 42);
  EXPECT_FALSE(parse_kernel_int("4 2"));
  EXPECT_FALSE(parse_kernel_int("-"));
  EXPECT_FALSE(parse_kernel_int(""));
  EXPECT_EQ(parse_kernel_bool("Y"), true);
  EXPECT_EQ(parse_kernel_bool("false"), false);
  EXPECT_FALSE(parse_kernel_bool("yes"));
  EXPECT_EQ(damon_effect("lru_deprio"), DamonEffect::lru);
  EXPECT_EQ(damon_effect("willneed"), DamonEffect::none);
}

// ---- the live machine ----

TEST(KernelTieringLive, NumaBalancingMatchesProc) {
  std::ifstream in("/proc/sys/kernel/numa_balancing");
  unsigned mode = 0;
  if (!(in >> mode)) GTEST_SKIP() << "no readable /proc/sys/kernel/numa_balancing here";
  KernelTiering kt = read_kernel_tiering(SysRoot());
  ASSERT_TRUE(kt.numa_balancing.mode.value) << kt.numa_balancing.mode.why_not;
  EXPECT_EQ(*kt.numa_balancing.mode.value, mode);
  EXPECT_EQ(kt.kernel_promotes(), (mode & 2) != 0);
  std::ifstream demotion("/sys/kernel/mm/numa/demotion_enabled");
  std::string word;
  if (demotion >> word) {
    EXPECT_EQ(kt.kernel_demotes(), word == "true");
  }
}

// ---- tierctl doctor ----

TEST(KernelTieringCli, DoctorJsonHasTheObject) {
  const std::string tierctl = std::string(TIER_BIN_DIR) + "/tierctl";
  ASSERT_TRUE(fs::exists(tierctl)) << tierctl << " missing: build the tierctl target first";
  Tree tree;
  tree.file(kNb, "3").file(kLimit, "1000").file(kDemotion, "true");
  damon_tree(tree);
  auto result =
      test::run_command({tierctl, "--root", tree.root().root().string(), "doctor", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = json::parse(result.out).as_object();
  ASSERT_TRUE(doc.contains("kernel_tiering")) << result.out;
  const auto& kt = doc.at("kernel_tiering");
  EXPECT_EQ(kt.at("numa_balancing").at("mode").to_number<unsigned>(), 3u);
  EXPECT_EQ(kt.at("numa_balancing").at("promote_rate_limit_mbps").to_number<unsigned>(), 1000u);
  EXPECT_TRUE(kt.at("summary").at("kernel_promotes").as_bool());
  EXPECT_TRUE(kt.at("summary").at("kernel_demotes").as_bool());
  EXPECT_TRUE(kt.at("summary").at("damon_acts").as_bool());

  auto text = test::run_command({tierctl, "--root", tree.root().root().string(), "doctor"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "kernel tiering:")) << text.out;
  EXPECT_TRUE(contains(text.out, "3 (normal + memory tiering)")) << text.out;
  EXPECT_TRUE(contains(text.out, "migrate_cold -> node 2")) << text.out;
}

TEST(KernelTieringCli, DoctorJsonLive) {
  const std::string tierctl = std::string(TIER_BIN_DIR) + "/tierctl";
  ASSERT_TRUE(fs::exists(tierctl)) << tierctl << " missing: build the tierctl target first";
  auto result = test::run_command({tierctl, "doctor", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = json::parse(result.out).as_object();
  ASSERT_TRUE(doc.contains("kernel_tiering")) << result.out;
  std::ifstream in("/proc/sys/kernel/numa_balancing");
  unsigned mode = 0;
  if (in >> mode) {
    EXPECT_EQ(doc.at("kernel_tiering").at("numa_balancing").at("mode").to_number<unsigned>(), mode);
  }
}

}  // namespace
}  // namespace tier
