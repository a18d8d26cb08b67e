// The latency plugin's model (tests/vm/plugin/model.c) without QEMU: the
// layout it refuses, the node of an address, the cache, what a miss costs
// against HMAT, the queue, the doorbell.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "model.h"
}

namespace {

// The numa4 machine as lib/qemu_topology.py --plugin-layout writes it.
const char* const kNuma4 =
    "# tier latency-model layout\n"
    "cpus 0 0-1\n"
    "cpus 1 2-3\n"
    "range 0 0x0 0x40000000\n"
    "range 1 0x40000000 0x80000000\n"
    "range 2 0x100000000 0x140000000\n"
    "range 3 0x140000000 0x180000000\n"
    "hmat 0 0 80 21474836480\n"
    "hmat 0 1 140 10737418240\n"
    "hmat 0 2 250 8589934592\n"
    "hmat 0 3 350 5368709120\n"
    "hmat 1 0 140 10737418240\n"
    "hmat 1 1 80 21474836480\n"
    "hmat 1 2 350 5368709120\n"
    "hmat 1 3 250 8589934592\n";

std::string parse_error(const std::string& text) {
  tm_layout layout;
  char err[256] = "";
  return tm_layout_parse(text.c_str(), &layout, err, sizeof err) == 0 ? "" : err;
}

uint64_t g_now = 0;
uint64_t fake_clock() {
  return g_now;
}

struct Model : ::testing::Test {
  tm_layout layout{};
  tm_options options{};
  tm_model model{};
  tm_vcpu cpu0{};
  void SetUp() override {
    char err[256];
    ASSERT_EQ(tm_layout_parse(kNuma4, &layout, err, sizeof err), 0) << err;
    tm_options_default(&options);
    ASSERT_EQ(tm_model_init(&model, &layout, &options, err, sizeof err), 0) << err;
    ASSERT_EQ(tm_vcpu_init(&cpu0, &model, 0), 0);
  }
  void TearDown() override { tm_vcpu_free(&cpu0); }
  void calibrate(double t0, double tline) {
    for (int n = 0; n < 4; ++n) tm_calibrate_node(&model, n, t0, tline);
    ASSERT_TRUE(tm_start_charging(&model, 0));
  }
};

TEST(ModelLayout, ParsesTheNuma4Machine) {
  tm_layout layout;
  char err[256];
  ASSERT_EQ(tm_layout_parse(kNuma4, &layout, err, sizeof err), 0) << err;
  EXPECT_EQ(layout.nodes, 4);
  EXPECT_EQ(layout.ncpus, 4);
  EXPECT_EQ(layout.cpu_node[1], 0);
  EXPECT_EQ(layout.cpu_node[2], 1);
  EXPECT_EQ(tm_layout_node_of(&layout, 0x3fffffff), 0);
  EXPECT_EQ(tm_layout_node_of(&layout, 0x40000000), 1);
  EXPECT_EQ(tm_layout_node_of(&layout, 0x90000000), -1);  // the PCI hole
  EXPECT_EQ(tm_layout_node_of(&layout, 0x100000000), 2);
  EXPECT_EQ(tm_layout_node_of(&layout, 0x17fffffff), 3);
  EXPECT_EQ(tm_layout_node_of(&layout, 0x180000000), -1);
  EXPECT_DOUBLE_EQ(layout.latency_ns[1][2], 350);
}

TEST(ModelLayout, RefusesWhatItCannotMapNamingTheLine) {
  std::string base = kNuma4;
  EXPECT_EQ(parse_error(base + "range 0 0x10 0x20\n"),
            "layout line 16: range 0x10 overlaps or precedes the last");
  EXPECT_EQ(parse_error(base + "range 1 0x200000000 0x100000000\n"),
            "layout line 16: expected 'range NODE START END' with START < END");
  EXPECT_EQ(parse_error(base + "cpus 1 3\n"),
            "layout line 16: expected 'cpus NODE LIST' (node < 8, vCPUs < 64, each once)");
  EXPECT_EQ(parse_error(base + "hmat 0 1 0 100\n"),
            "layout line 16: expected 'hmat INITIATOR TARGET LATENCY_NS BYTES_PER_S' (both > 0)");
  EXPECT_EQ(parse_error(base + "dimm 0\n"),
            "layout line 16: unknown entry 'dimm' (cpus, range, hmat)");
  EXPECT_EQ(parse_error("cpus 0 0\ncpus 0 2\nrange 0 0 4096\nhmat 0 0 80 1\n"),
            "layout: vCPU 1 is on no node");
  EXPECT_EQ(parse_error("cpus 0 0\nrange 0 0 4096\nrange 1 4096 8192\nhmat 0 0 80 1\n"),
            "layout: no 'hmat 0 1 ...' entry (node 0 has CPUs, 1 memory)");
  EXPECT_EQ(parse_error(""), "layout: no 'cpus' entry");
}

TEST(ModelOptions, RefusesBadValuesNamingTheOption) {
  tm_options o;
  tm_options_default(&o);
  char err[256];
  EXPECT_EQ(tm_options_parse(&o, "cache=2M", err, sizeof err), 0);
  EXPECT_EQ(o.cache_bytes, 2u << 20);
  EXPECT_EQ(tm_options_parse(&o, "cache=", err, sizeof err), -1);
  EXPECT_STREQ(err, "option 'cache=': expected a size from 4K to 1G (e.g. 1M)");
  EXPECT_EQ(tm_options_parse(&o, "ways=0", err, sizeof err), -1);
  EXPECT_STREQ(err, "option 'ways=0': expected an associativity from 1 to 64");
  EXPECT_EQ(tm_options_parse(&o, "scale=0.5", err, sizeof err), -1);
  EXPECT_STREQ(err, "option 'scale=0.5': expected a factor from 1 to 100");
  EXPECT_EQ(tm_options_parse(&o, "streams=x", err, sizeof err), -1);
  EXPECT_EQ(tm_options_parse(&o, "latency=matched", err, sizeof err), 0);
  EXPECT_TRUE(o.latency_matched);
  EXPECT_EQ(tm_options_parse(&o, "latency=", err, sizeof err), -1);
  EXPECT_STREQ(err, "option 'latency=': expected calibrated or matched");
  EXPECT_FALSE(o.charge_kernel);  // the default
  EXPECT_EQ(tm_options_parse(&o, "kernel=charged", err, sizeof err), 0);
  EXPECT_TRUE(o.charge_kernel);
  EXPECT_EQ(tm_options_parse(&o, "kernel=free", err, sizeof err), 0);
  EXPECT_FALSE(o.charge_kernel);
  EXPECT_EQ(tm_options_parse(&o, "kernel=charged", err, sizeof err), 0);
  EXPECT_TRUE(o.charge_kernel);
  EXPECT_EQ(tm_options_parse(&o, "kernel=yes", err, sizeof err), -1);
  EXPECT_STREQ(err, "option 'kernel=yes': expected charged or free");
  EXPECT_EQ(tm_options_parse(&o, "nosuch=1", err, sizeof err), 1);  // the glue's to name
  EXPECT_EQ(tm_options_parse(&o, "cache", err, sizeof err), -1);
  EXPECT_STREQ(err, "option 'cache': expected key=value");
}

TEST_F(Model, RefusesACacheWhoseSetsAreNoPowerOfTwo) {
  tm_options odd = options;
  odd.cache_bytes = 3u << 20;  // 49152 lines / 16 ways = 3072 sets
  char err[256];
  tm_model other;
  EXPECT_EQ(tm_model_init(&other, &layout, &odd, err, sizeof err), -1);
}

TEST_F(Model, AHitCostsNothingAndALineMissesOnceUntilEvicted) {
  calibrate(200, 100);
  g_now = 1000000;
  EXPECT_GT(tm_access(&model, &cpu0, 0x100000000, fake_clock), 0);  // node 2: a miss
  EXPECT_EQ(tm_access(&model, &cpu0, 0x100000008, fake_clock), 0);  // same line: a hit
  EXPECT_EQ(cpu0.per_node[2].accesses, 2u);
  EXPECT_EQ(cpu0.per_node[2].misses, 1u);
  // 1 MiB, 16 ways: 17 lines of one set evict the first.
  const uint64_t set_stride = (1u << 20) / 16;
  for (uint64_t i = 1; i <= 16; ++i)
    tm_access(&model, &cpu0, 0x100000000 + i * set_stride, fake_clock);
  EXPECT_EQ(cpu0.per_node[2].misses, 17u);
  tm_access(&model, &cpu0, 0x100000000, fake_clock);
  EXPECT_EQ(cpu0.per_node[2].misses, 18u);
}

// kernel=free: the kernel's own accesses share the vCPU's cache (a line
// they bring in is a hit for the program after) and are counted, but add
// no debt, however slow their node.
TEST_F(Model, AnUnchargedAccessIsCountedAndCachedButCostsNothing) {
  calibrate(200, 100);
  g_now = 1000000;
  tm_access_uncharged(&model, &cpu0, 0x140000000);  // node 3, a miss
  EXPECT_EQ(cpu0.debt_ns, 0);
  EXPECT_EQ(cpu0.per_node[3].accesses, 1u);
  EXPECT_EQ(cpu0.per_node[3].misses, 1u);
  EXPECT_EQ(cpu0.per_node[3].kernel, 1u);
  EXPECT_EQ(tm_access(&model, &cpu0, 0x140000008, fake_clock), 0);  // the same line: a hit
  EXPECT_EQ(cpu0.per_node[3].misses, 1u);
  EXPECT_GT(tm_access(&model, &cpu0, 0x140100000, fake_clock), 0);  // charged as before
  EXPECT_EQ(cpu0.per_node[3].kernel, 1u);
}

TEST_F(Model, UncalibratedItOnlyCounts) {
  EXPECT_EQ(tm_access(&model, &cpu0, 0x140000000, fake_clock), 0);
  EXPECT_EQ(cpu0.per_node[3].misses, 1u);
  EXPECT_EQ(cpu0.debt_ns, 0);
  EXPECT_FALSE(tm_start_charging(&model, 0));  // no node calibrated
  tm_calibrate_node(&model, 0, 200, 100);
  EXPECT_FALSE(tm_start_charging(&model, 0));  // nodes 1-3 not yet
}

TEST_F(Model, AMissCostsHmatsRatioOverTheFastestPair) {
  calibrate(200, 100);  // t0_ref = 4 x 200 = 800 ns, tline_ref 400 ns
  EXPECT_DOUBLE_EQ(tm_miss_cost(&model, 0, 0, false), 800);
  EXPECT_DOUBLE_EQ(tm_miss_cost(&model, 0, 2, false), 800 * 250.0 / 80);
  EXPECT_DOUBLE_EQ(tm_miss_cost(&model, 1, 2, false), 800 * 350.0 / 80);
  EXPECT_DOUBLE_EQ(tm_miss_cost(&model, 0, 0, true), 400);
  EXPECT_DOUBLE_EQ(tm_miss_cost(&model, 0, 3, true), 400 * 4.0);  // 20G over 5G
}

TEST_F(Model, MatchedLatencyTakesTheStreamsTimeDilation) {
  options.latency_matched = true;
  char err[256];
  ASSERT_EQ(tm_model_init(&model, &layout, &options, err, sizeof err), 0) << err;
  calibrate(200, 100);  // tline_ref 400 ns for a line that takes 64 B / 20 GiB/s on the machine
  const double line_ns = 64 * 1e9 / 21474836480.0;
  const double dilation = 400 / line_ns;  // ~134x
  EXPECT_DOUBLE_EQ(tm_miss_cost(&model, 0, 0, true), 400);
  EXPECT_NEAR(tm_miss_cost(&model, 0, 0, false), dilation * 80, 1e-6);
  EXPECT_NEAR(tm_miss_cost(&model, 0, 2, false), dilation * 250, 1e-6);
  EXPECT_NEAR(tm_miss_cost(&model, 1, 3, false) / tm_miss_cost(&model, 1, 1, false), 250.0 / 80,
              1e-9);
}

TEST_F(Model, TimeSinceTheLastMissCountsTowardsTheCost) {
  calibrate(200, 100);
  g_now = 1000000;
  tm_access(&model, &cpu0, 0x140000000, fake_clock);  // node 3, first miss: no interval
  double debt = cpu0.debt_ns;
  g_now += 1000;  // 1 us of the program's own work
  double charged = tm_access(&model, &cpu0, 0x140100000, fake_clock);  // not the next line
  // 800 * 350/80 = 3500 ns in all, of which 1000 passed already; plus the queue.
  EXPECT_GE(charged, 2500);
  EXPECT_LT(charged, 2500 + 1000);
  EXPECT_DOUBLE_EQ(cpu0.debt_ns, debt + charged);
  g_now += 10000;  // longer than the miss costs: nothing to add but the queue
  EXPECT_LT(tm_access(&model, &cpu0, 0x140200000, fake_clock), 1000);
}

TEST_F(Model, QueueingRisesWithUtilisation) {
  calibrate(200, 100);
  double low = tm_queue_wait(&model, 0, 0, 0.1), mid = tm_queue_wait(&model, 0, 0, 0.5),
         high = tm_queue_wait(&model, 0, 0, 0.9);
  EXPECT_EQ(tm_queue_wait(&model, 0, 0, 0), 0);
  EXPECT_LT(low, mid);
  EXPECT_LT(mid, high);
  EXPECT_DOUBLE_EQ(mid, 400 / 2 * 0.5 / (2 * 0.5));  // M/D/1: S rho / (2 (1 - rho)), 2 streams
  EXPECT_DOUBLE_EQ(tm_queue_wait(&model, 0, 0, 3), tm_queue_wait(&model, 0, 0, 0.95));
  // A remote pair's line holds the node longer (10G against 20G).
  EXPECT_DOUBLE_EQ(tm_queue_wait(&model, 1, 0, 0.5), 2 * mid);
}

// Colloid's observation, in the model: a fast node near saturation costs a
// random miss more than an idle slow node does. With the calibrated latency
// (scale 4) the crossing comes near the utilisation cap: 800 + 1 900 ns
// against 2 500 ns at 0.95. (Under latency=matched the random misses are
// dilated and the queue, in line service times, never reaches them.)
TEST_F(Model, AFastNodeNearSaturationCostsMoreThanAnIdleSlowNode) {
  calibrate(200, 100);
  const double idle_slow = tm_miss_cost(&model, 0, 2, false) + tm_queue_wait(&model, 0, 2, 0);
  const double loaded_fast = tm_miss_cost(&model, 0, 0, false) + tm_queue_wait(&model, 0, 0, 0.95);
  const double half_loaded_fast =
      tm_miss_cost(&model, 0, 0, false) + tm_queue_wait(&model, 0, 0, 0.5);
  EXPECT_DOUBLE_EQ(idle_slow, 2500);
  EXPECT_DOUBLE_EQ(loaded_fast, 2700);
  EXPECT_GT(loaded_fast, idle_slow);
  EXPECT_LT(half_loaded_fast, idle_slow);  // half loaded it is still the faster node
}

TEST_F(Model, TheDoorbellCalibratesAndStartsCharging) {
  auto ring = [&](uint64_t command, int node, uint64_t value) {
    bool done = tm_doorbell_store(&model, &cpu0, TM_DOOR_MAGIC);
    done |= tm_doorbell_store(&model, &cpu0, TM_DOOR_TAG | (uint64_t(node) << 8) | command);
    return done | tm_doorbell_store(&model, &cpu0, value);
  };
  for (int n = 0; n < 4; ++n) {
    EXPECT_TRUE(ring(TM_DOOR_SET_T0, n, 250000));  // 250 ns in ps
    EXPECT_TRUE(ring(TM_DOOR_SET_TLINE, n, 90000));
  }
  EXPECT_DOUBLE_EQ(model.t0[3], 250);
  EXPECT_FALSE(model.charging);
  EXPECT_TRUE(ring(TM_DOOR_CHARGE, 0, 0));
  EXPECT_TRUE(model.charging);
  EXPECT_DOUBLE_EQ(model.t0_ref, 4 * 250);
  EXPECT_TRUE(ring(TM_DOOR_CHARGE, 0, TM_DOOR_OFF));
  EXPECT_FALSE(model.charging);
  // A stray store between magic and command: no command.
  tm_doorbell_store(&model, &cpu0, TM_DOOR_MAGIC);
  tm_doorbell_store(&model, &cpu0, 12345);
  EXPECT_FALSE(tm_doorbell_store(&model, &cpu0, TM_DOOR_TAG | TM_DOOR_CHARGE));
  EXPECT_FALSE(model.charging);
}

}  // namespace
