// libtierpreload in-process: the TIER_PRELOAD_* parsers, the sysfs topology
// reader on fixture trees, and the allocator's tp_* entry points under every
// policy (sanitized in the ASan build). The exported symbols themselves are
// tested through LD_PRELOAD in preload_test.
#include <gtest/gtest.h>
#include <numaif.h>

#include <climits>
#include <cstdint>
#include <string>

#include "preload_checks.h"
#include "test_support.hpp"
#include "tp_internal.h"

#if defined(__SANITIZE_ADDRESS__)
// The checks ask for impossible sizes (malloc(SIZE_MAX - 4096) must be NULL +
// ENOMEM); in this build the small path is ASan's allocator, which aborts on
// them unless told to return NULL like glibc.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
#endif

namespace {

namespace fs = std::filesystem;
using tier::test::ScopedEnv;

struct Parsed {
  int rc;
  tp_config cfg;
  std::string err;
};

Parsed parse(const char* policy, const char* threshold = nullptr, const char* strict = nullptr) {
  Parsed p{};
  char err[512];
  p.rc = tp_parse_config(policy, threshold, strict, nullptr, nullptr, &p.cfg, err, sizeof err);
  p.err = err;
  return p;
}

TEST(PreloadConfig, EveryPolicyParses) {
  EXPECT_EQ(parse("local").cfg.mode, TP_MODE_LOCAL);
  EXPECT_EQ(parse("fast").cfg.mode, TP_MODE_FAST);
  EXPECT_EQ(parse("slow").cfg.mode, TP_MODE_SLOW);
  EXPECT_EQ(parse("auto").cfg.mode, TP_MODE_AUTO);
  Parsed nodes = parse("nodes:0,2-3");
  ASSERT_EQ(nodes.rc, 0) << nodes.err;
  EXPECT_EQ(nodes.cfg.mode, TP_MODE_NODES);
  EXPECT_EQ(tp_mask_count(&nodes.cfg.nodes), 3);
  EXPECT_TRUE(tp_mask_test(&nodes.cfg.nodes, 3));
  EXPECT_EQ(parse("interleave:0,1").cfg.mode, TP_MODE_INTERLEAVE);
  EXPECT_EQ(parse("preferred-many:2,3").cfg.mode, TP_MODE_PREFERRED_MANY);
  Parsed weighted = parse("weighted:0=3,2=1");
  ASSERT_EQ(weighted.rc, 0) << weighted.err;
  EXPECT_EQ(weighted.cfg.weights[0], 3);
  EXPECT_EQ(weighted.cfg.weights[2], 1);
  EXPECT_EQ(weighted.cfg.weights[1], 0);
  Parsed ratio = parse("ratio:1:3");
  ASSERT_EQ(ratio.rc, 0);
  EXPECT_EQ(ratio.cfg.ratio_fast, 1u);
  EXPECT_EQ(ratio.cfg.ratio_slow, 3u);
  // Defaults: 1 MiB and up, advisory; no policy at all is plain glibc without a word.
  EXPECT_EQ(ratio.cfg.min_size, size_t{1} << 20);
  EXPECT_EQ(ratio.cfg.max_size, SIZE_MAX);
  EXPECT_EQ(ratio.cfg.strict, TP_STRICT_ADVISORY);
  Parsed none = parse(nullptr);
  EXPECT_EQ(none.rc, 0);
  EXPECT_EQ(none.cfg.mode, TP_MODE_OFF);
  EXPECT_EQ(none.err, "");
}

TEST(PreloadConfig, NodeMasksWiderThan64Bits) {
  Parsed p = parse("nodes:1,70,1000-1001");
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_EQ(tp_mask_count(&p.cfg.nodes), 4);
  EXPECT_TRUE(tp_mask_test(&p.cfg.nodes, 70));
  EXPECT_TRUE(tp_mask_test(&p.cfg.nodes, 1001));
  EXPECT_EQ(tp_mask_first(&p.cfg.nodes), 1);
}

TEST(PreloadConfig, ThresholdWindowAndStrictness) {
  Parsed p = parse("local", "64K:2M", "strict");
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_EQ(p.cfg.min_size, size_t{64} << 10);
  EXPECT_EQ(p.cfg.max_size, size_t{2} << 20);
  EXPECT_EQ(p.cfg.strict, TP_STRICT_STRICT);
  p = parse("local", "1G:", "none");
  EXPECT_EQ(p.cfg.min_size, size_t{1} << 30);
  EXPECT_EQ(p.cfg.max_size, SIZE_MAX);
  EXPECT_EQ(p.cfg.strict, TP_STRICT_NONE);
  EXPECT_EQ(parse("local", "4096").cfg.min_size, 4096u);
}

// TIER_PRELOAD_THRESHOLD reads sizes through the value grammar's scanner:
// tierctl's and tierd's spellings, nothing more.
TEST(PreloadConfig, ThresholdSpellsSizesAsTheValueGrammar) {
  Parsed p = parse("local", "64KiB:2mib");
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_EQ(p.cfg.min_size, size_t{64} << 10);
  EXPECT_EQ(p.cfg.max_size, size_t{2} << 20);
  EXPECT_EQ(parse("local", "1TiB").cfg.min_size, size_t{1} << 40);
  for (const char* threshold : {"64KB", "4B", "iB", "1.5M", "16777216TiB"}) {
    Parsed bad = parse("local", threshold);
    EXPECT_EQ(bad.rc, -1) << threshold;
    EXPECT_EQ(bad.err.rfind("TIER_PRELOAD_THRESHOLD='" + std::string(threshold) + "': ", 0), 0u)
        << bad.err;
  }
}

TEST(PreloadConfig, InvalidValuesTurnPlacementOffNamingTheVariable) {
  for (const char* policy :
       {"bogus", "nodes:", "nodes:1,", "nodes:2-1", "nodes:1024", "nodes:x", "weighted:0=0",
        "weighted:0=3,0=1", "weighted:0", "ratio:1", "ratio:0:0", "interleave:", "LOCAL"}) {
    Parsed p = parse(policy);
    EXPECT_EQ(p.rc, -1) << policy;
    EXPECT_EQ(p.cfg.mode, TP_MODE_OFF) << policy;
    EXPECT_EQ(p.err.rfind("TIER_PRELOAD_POLICY='" + std::string(policy) + "': ", 0), 0u) << p.err;
  }
  for (const char* threshold : {"1X", "2M:1M", "-1", "99999999999999999999", "16777216T"}) {
    Parsed p = parse("local", threshold);
    EXPECT_EQ(p.rc, -1) << threshold;
    EXPECT_EQ(p.err.rfind("TIER_PRELOAD_THRESHOLD=", 0), 0u) << p.err;
  }
  Parsed p = parse("local", nullptr, "maybe");
  EXPECT_EQ(p.rc, -1);
  EXPECT_EQ(p.err.rfind("TIER_PRELOAD_STRICT='maybe'", 0), 0u) << p.err;
}

fs::path qemu_fixture() {
  return fs::path(TIER_FIXTURES) / "sysfs" / "qemu-4node";
}

TEST(PreloadTopology, EmulatedMachineFastSlowAndNearestOfSet) {
  tp_nodemask set{};
  tp_mask_set(&set, 1);
  tp_mask_set(&set, 3);
  tp_topology topo{};
  ASSERT_EQ(tp_read_topology(qemu_fixture().c_str(), &set, &topo), 0);
  EXPECT_EQ(topo.nr_nodes, 4);
  EXPECT_TRUE(topo.tiers_from_kernel);
  EXPECT_TRUE(topo.has_slow_tier);
  EXPECT_EQ(topo.rank[0], 0);
  EXPECT_EQ(topo.rank[2], 1);
  // node 0: distances 10 21 24 34; node 1: 21 10 34 24
  EXPECT_EQ(topo.fast_for[0], 0);
  EXPECT_EQ(topo.fast_for[1], 1);
  EXPECT_EQ(topo.slow_for[0], 2);
  EXPECT_EQ(topo.slow_for[1], 3);
  EXPECT_EQ(topo.set_for[0], 1);
  EXPECT_EQ(topo.set_for[1], 1);
}

TEST(PreloadTopology, WithoutKernelTiersCpuLessNodesAreTheSlowTier) {
  tier::test::TempDir dir("preload-topo");
  tier::test::copy_tree(qemu_fixture(), dir.path() / "root");
  fs::remove_all(dir.path() / "root/sys/devices/virtual/memory_tiering");
  tp_topology topo{};
  ASSERT_EQ(tp_read_topology((dir.path() / "root").c_str(), nullptr, &topo), 0);
  EXPECT_FALSE(topo.tiers_from_kernel);
  EXPECT_EQ(topo.slow_for[0], 2);
  EXPECT_EQ(topo.fast_for[1], 1);
}

TEST(PreloadTopology, OneTierMachineSlowIsFast) {
  tp_topology topo{};
  ASSERT_EQ(tp_read_topology("", nullptr, &topo), 0);
  ASSERT_TRUE(tp_mask_test(&topo.memory, 0));
  if (tp_mask_count(&topo.memory) != 1) GTEST_SKIP() << "expects this one-node build machine";
  EXPECT_FALSE(topo.has_slow_tier);
  EXPECT_EQ(topo.slow_for[0], 0);
  EXPECT_EQ(tp_read_topology("/nonexistent", nullptr, &topo), -1);
}

void* tp_aligned_alloc(size_t align, size_t n) {
  return tp_memalign(align, n);
}

const tpc_api kDirect = {
    tp_malloc,        tp_free,     tp_calloc, tp_realloc, tp_reallocarray,      tp_posix_memalign,
    tp_aligned_alloc, tp_memalign, tp_valloc, tp_pvalloc, tp_malloc_usable_size};

struct PolicyCase {
  const char* policy;
  const char* strict;
  int mode;  // the VMA policy a placed block must have
};

class PreloadAllocator : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(PreloadAllocator, SemanticsAndPlacementOnNode0) {
  const PolicyCase& c = GetParam();
  ScopedEnv policy("TIER_PRELOAD_POLICY", c.policy);
  ScopedEnv threshold("TIER_PRELOAD_THRESHOLD", "64K");
  ScopedEnv strict("TIER_PRELOAD_STRICT", c.strict);
  ScopedEnv socket("TIER_PRELOAD_SOCKET", "/nonexistent/tierd.sock");
  tp_reinit_for_tests();
  ASSERT_STREQ(tp_warning(), "");
  const size_t large = size_t{1} << 20;
  const tpc_expect expect{large, c.mode, 0};
  EXPECT_EQ(tpc_run_all(&kDirect, &expect), 0);
  // Counted while placed, back to zero once freed.
  void* p = tp_malloc(large);
  if (c.mode != MPOL_DEFAULT || std::string(c.strict) == "none") {
    EXPECT_GE(tp_stats_node_bytes(0), large);
  }
  tp_free(p);
  EXPECT_EQ(tp_stats_node_bytes(0), 0u);
}

INSTANTIATE_TEST_SUITE_P(Policies, PreloadAllocator,
                         ::testing::Values(PolicyCase{"nodes:0", "advisory",
                                                      5 /* MPOL_PREFERRED_MANY */},
                                           PolicyCase{"nodes:0", "strict", MPOL_BIND},
                                           PolicyCase{"nodes:0", "none", MPOL_DEFAULT},
                                           PolicyCase{"local", "advisory", 4 /* MPOL_LOCAL */},
                                           PolicyCase{"fast", "advisory", MPOL_PREFERRED},
                                           PolicyCase{"slow", "strict", MPOL_BIND},
                                           PolicyCase{"interleave:0", "advisory", MPOL_INTERLEAVE},
                                           PolicyCase{"weighted:0=3", "advisory", MPOL_PREFERRED},
                                           PolicyCase{"preferred-many:0", "advisory", 5},
                                           PolicyCase{"ratio:3:1", "advisory", MPOL_PREFERRED},
                                           PolicyCase{"auto", "advisory", 4 /* no tierd: local */}),
                         [](const auto& param_info) {
                           return tier::test::test_name_from(std::string(param_info.param.policy) +
                                                             "_" + param_info.param.strict);
                         });

TEST(PreloadAllocatorOff, InvalidPolicyIsPlainGlibcWithOneWarning) {
  ScopedEnv policy("TIER_PRELOAD_POLICY", "nodes:7");
  ScopedEnv threshold("TIER_PRELOAD_THRESHOLD", "64K");
  tp_reinit_for_tests();
  EXPECT_STREQ(tp_warning(), "TIER_PRELOAD_POLICY='nodes:7': node 7 has no memory on this machine");
  const tpc_expect expect{size_t{1} << 20, MPOL_DEFAULT, 0};
  EXPECT_EQ(tpc_run_all(&kDirect, &expect), 0);
  void* p = tp_malloc(size_t{4} << 20);
  EXPECT_FALSE(tp_is_placed(p));
  tp_free(p);
}

TEST(PreloadStress, ThreadsForksAndReallocsAcrossTheThreshold) {
  ScopedEnv policy("TIER_PRELOAD_POLICY", "nodes:0");
  const char* seconds = std::getenv("TIER_STRESS_SECONDS");
  auto r = tier::test::run_command(
      {TIER_PRELOAD_STRESS_CORE, seconds != nullptr ? seconds : "10", "16"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" 0 bad children, 0 corrupt"), std::string::npos) << r.out;
}

}  // namespace
