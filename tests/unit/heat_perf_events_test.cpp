// Precise-PMU event resolution on a machine without a PMU. libpfm4 encodes
// Intel events for models this machine is not: named explicitly ("skl::...",
// allowed by LIBPFM_ENCODE_INACTIVE=1) or forced with LIBPFM_FORCE_PMU. Model
// names Debian's libpfm4 4.13 accepts include skl, icl, spr, amd64_fam19h_zen4
// (its pfm_get_pmu_info names). libpfm reads both variables once per process,
// at its first initialisation, so: ENCODE_INACTIVE is set before main() for
// this whole binary, and the FORCE_PMU test runs this binary again as a child
// with the variable set. IBS comes from an ibs_op sysfs fixture, and the
// "pmu" source says precisely why it cannot run here.
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_support.hpp"
#include "tier/heat/perf_pmu_events.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat::perf {
namespace {

using tier::test::run_command;
using tier::test::ScopedEnv;
using tier::test::TempDir;
using tier::test::write_text_file;

constexpr const char* kDevices = "sys/bus/event_source/devices/";

// Before any test touches libpfm (see the file comment).
const bool kEncodeInactive = setenv("LIBPFM_ENCODE_INACTIVE", "1", 1) == 0;

TEST(PfmEncoding, SkylakePebsLoadLatencyWithThreshold) {
  ASSERT_TRUE(kEncodeInactive);
  PmuEventEncoding event = intel_load_latency_event(64, 1000, "skl");
  EXPECT_EQ(event.pmu_model, "skl");
  EXPECT_EQ(event.attr.type, static_cast<std::uint32_t>(PERF_TYPE_RAW));
  EXPECT_EQ(event.attr.config, 0x1cdu);  // event 0xcd, umask 0x01: MEM_TRANS_RETIRED.LOAD_LATENCY
  EXPECT_EQ(event.attr.config1, 64u);    // ldlat: the latency threshold in cycles
  EXPECT_EQ(event.attr.precise_ip, 2u);
  EXPECT_EQ(event.attr.sample_period, 1000u);
  EXPECT_EQ(event.attr.freq, 0u);
  EXPECT_EQ(event.attr.exclude_kernel, 1u);
  EXPECT_EQ(event.attr.exclude_user, 0u);
  EXPECT_NE(event.canonical.find("ldlat=64"), std::string::npos) << event.canonical;
}

TEST(PfmEncoding, SapphireRapidsThresholdFollowsTheArgument) {
  PmuEventEncoding event = intel_load_latency_event(32, 2000, "spr");
  EXPECT_EQ(event.pmu_model, "spr");
  EXPECT_EQ(event.attr.config, 0x1cdu);
  EXPECT_EQ(event.attr.config1, 32u);
  EXPECT_EQ(event.attr.precise_ip, 2u);
  EXPECT_EQ(event.attr.sample_period, 2000u);
}

TEST(PfmEncoding, IceLakeL3MissLoads) {
  PmuEventEncoding event = intel_l3_miss_event(5000, "icl");
  EXPECT_EQ(event.pmu_model, "icl");
  EXPECT_EQ(event.attr.type, static_cast<std::uint32_t>(PERF_TYPE_RAW));
  EXPECT_EQ(event.attr.config, 0x20d1u);  // event 0xd1, umask 0x20: MEM_LOAD_RETIRED.L3_MISS
  EXPECT_EQ(event.attr.config1, 0u);
  EXPECT_EQ(event.attr.precise_ip, 2u);
  EXPECT_EQ(event.attr.sample_period, 5000u);
}

TEST(PfmEncoding, IntelEventOnAnAmdModelFailsWithTheModelNamed) {
  try {
    intel_load_latency_event(64, 1000, "amd64_fam19h_zen4");
    FAIL() << "an Intel event resolved on Zen 4";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("amd64_fam19h_zen4::MEM_TRANS_RETIRED"), std::string::npos)
        << e.what();
  }
}

// PfmForced.* run in a child with LIBPFM_FORCE_PMU set (ForcedModelInAFreshProcess).
const char* forced_model() {
  return std::getenv("LIBPFM_FORCE_PMU");
}

TEST(PfmForced, UnprefixedEventsResolveForTheForcedModel) {
  if (forced_model() == nullptr) GTEST_SKIP() << "runs as a child of ForcedModelInAFreshProcess";
  PmuEventEncoding event = intel_l3_miss_event(100);
  EXPECT_EQ(event.pmu_model, forced_model());
  EXPECT_EQ(event.attr.config, 0x20d1u);
  EXPECT_EQ(event.attr.precise_ip, 2u);
}

// A sysfs tree with PEBS load latency, and libpfm on the same (forced) model:
// the "pmu" source would use it (not live, so nothing is opened).
TEST(PfmForced, PmuAvailableOnAPebsTree) {
  if (forced_model() == nullptr) GTEST_SKIP() << "runs as a child of ForcedModelInAFreshProcess";
  TempDir dir;
  write_text_file(dir.path() / kDevices / "cpu/format/ldlat", "config1:0-15\n");
  SourceAvailability a = pmu_availability(SysRoot(dir.path()));
  EXPECT_TRUE(a.available) << a.reason;
  EXPECT_EQ(a.reason, "PEBS load latency (cpu/format/ldlat)");
}

TEST(PfmEncoding, ForcedModelInAFreshProcess) {
  if (std::getenv("LIBPFM_FORCE_PMU") != nullptr) GTEST_SKIP() << "already the child";
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  for (const char* model : {"skl", "icl", "spr"}) {
    ScopedEnv force("LIBPFM_FORCE_PMU", model);
    auto result = run_command({self, "--gtest_filter=PfmForced.*"});
    EXPECT_EQ(result.exit_code, 0) << model << ":\n" << result.out << result.err;
    EXPECT_NE(result.out.find("[  PASSED  ] 2 tests"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("SKIPPED"), std::string::npos) << result.out;
  }
}

TEST(IbsOpEvent, TypeFromSysfsAndPeriodInUnitsOf16) {
  TempDir dir;
  write_text_file(dir.path() / kDevices / "ibs_op/type", "11\n");
  write_text_file(dir.path() / kDevices / "ibs_op/format/cnt_ctl", "config:19\n");
  PmuEventEncoding event = ibs_op_event(SysRoot(dir.path()), 1000);
  EXPECT_EQ(event.attr.type, 11u);
  EXPECT_EQ(event.attr.config, std::uint64_t{1} << 19) << "count ops, not cycles";
  EXPECT_EQ(event.attr.sample_period, 992u);
  EXPECT_EQ(ibs_op_event(SysRoot(dir.path()), 3).attr.sample_period, 16u);
}

TEST(IbsOpEvent, MissingTypeIsAnError) {
  TempDir dir;
  EXPECT_THROW(ibs_op_event(SysRoot(dir.path()), 1000), SourceError);
}

TEST(DetectPrecisePmu, FromSysfsTrees) {
  TempDir none, pebs, ibs, plain;
  std::filesystem::create_directories(none.path() / kDevices / "software");
  write_text_file(pebs.path() / kDevices / "cpu/format/ldlat", "config1:0-15\n");
  write_text_file(ibs.path() / kDevices / "ibs_op/type", "11\n");
  write_text_file(plain.path() / kDevices / "cpu/type", "4\n");

  PrecisePmu got = detect_precise_pmu(SysRoot(none.path()));
  EXPECT_EQ(got.kind, PrecisePmuKind::none);
  EXPECT_EQ(got.evidence, "no core PMU in /sys/bus/event_source/devices; no ibs_op");

  got = detect_precise_pmu(SysRoot(pebs.path()));
  EXPECT_EQ(got.kind, PrecisePmuKind::intel_pebs);
  EXPECT_EQ(got.core_pmu, "cpu");

  EXPECT_EQ(detect_precise_pmu(SysRoot(ibs.path())).kind, PrecisePmuKind::amd_ibs);

  got = detect_precise_pmu(SysRoot(plain.path()));
  EXPECT_EQ(got.kind, PrecisePmuKind::none);
  EXPECT_NE(got.evidence.find("without PEBS load latency"), std::string::npos) << got.evidence;
}

// This machine: no core PMU, no IBS (environment.md). The reason must say so.
TEST(PmuSource, UnavailableHereWithThePreciseReason) {
  SysRoot live("/");
  if (live.exists("/sys/bus/event_source/devices/cpu") ||
      live.exists("/sys/bus/event_source/devices/ibs_op")) {
    GTEST_SKIP() << "this machine has a core PMU or IBS";
  }
  SourceAvailability a = pmu_availability(live);
  EXPECT_FALSE(a.available);
  EXPECT_EQ(a.reason, "no core PMU in /sys/bus/event_source/devices; no ibs_op");

  SourceOptions options;
  auto source = make_pmu_source(options);
  EXPECT_EQ(source->name(), "pmu");
  try {
    source->start({getpid()});
    FAIL() << "the pmu source started without a PMU";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find(a.reason), std::string::npos) << e.what();
  }
  std::vector<AccessSample> out;
  PollResult r = source->poll(out);
  EXPECT_FALSE(r.active);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace tier::heat::perf
