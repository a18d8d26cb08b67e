// The "damon" source against DAMON sysfs fixture trees: the exact files
// start() and stop() write, that nothing is written when a kdamond exists,
// region samples from tried_regions, and a kdamond that stopped by itself.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "heat_kernel_fixture.hpp"
#include "tier/heat/damon_source.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {
namespace {

using test::KernelTree;
using ::testing::HasSubstr;

const std::string kAdmin = "/sys/kernel/mm/damon/admin/kdamonds";

std::string kd(unsigned index, const std::string& leaf) {
  return kAdmin + "/" + std::to_string(index) + leaf;
}

// What the kernel shows after `nr_kdamonds` N, `nr_contexts` 1, `nr_targets`
// 1 and `nr_schemes` 1 (Documentation/admin-guide/mm/damon/usage.rst), with
// its defaults; writes never create files, so a wrong path fails the test.
void add_kdamond(KernelTree& tree, unsigned index,
                 const std::string& avail = "vaddr\nfvaddr\npaddr") {
  const std::string ctx = "/contexts/0";
  tree.file(kd(index, "/state"), "off\n")
      .file(kd(index, "/pid"), "-1\n")
      .file(kd(index, "/contexts/nr_contexts"), "0\n")
      .file(kd(index, ctx + "/avail_operations"), avail + "\n")
      .file(kd(index, ctx + "/operations"), "vaddr\n")
      .file(kd(index, ctx + "/monitoring_attrs/intervals/sample_us"), "5000\n")
      .file(kd(index, ctx + "/monitoring_attrs/intervals/aggr_us"), "100000\n")
      .file(kd(index, ctx + "/monitoring_attrs/intervals/update_us"), "1000000\n")
      .file(kd(index, ctx + "/monitoring_attrs/nr_regions/min"), "10\n")
      .file(kd(index, ctx + "/monitoring_attrs/nr_regions/max"), "1000\n")
      .file(kd(index, ctx + "/targets/nr_targets"), "0\n")
      .file(kd(index, ctx + "/targets/0/pid_target"), "0\n")
      .file(kd(index, ctx + "/schemes/nr_schemes"), "0\n")
      .file(kd(index, ctx + "/schemes/0/action"), "stat\n");
  for (const char* bound : {"sz", "nr_accesses", "age"}) {
    for (const char* end : {"min", "max"}) {
      tree.file(kd(index, ctx + "/schemes/0/access_pattern/" + bound + "/" + end), "0\n");
    }
  }
  tree.file(kd(index, ctx + "/schemes/0/tried_regions/total_bytes"), "0\n");
}

struct DamonTree : KernelTree {
  explicit DamonTree(unsigned kdamonds = 1, unsigned existing = 0) {
    file(kAdmin + "/nr_kdamonds", std::to_string(existing) + "\n");
    for (unsigned i = 0; i < kdamonds; ++i) add_kdamond(*this, i);
    file("/proc/4242/status", "Name:\tworkload\n");
    file("/proc/4343/status", "Name:\tother\n");
  }
  std::string at(unsigned index, const std::string& leaf) const { return read(kd(index, leaf)); }
  void region(unsigned index, unsigned n, std::uint64_t start, std::uint64_t end,
              unsigned nr_accesses) {
    const std::string dir = "/contexts/0/schemes/0/tried_regions/" + std::to_string(n);
    file(kd(index, dir + "/start"), std::to_string(start) + "\n")
        .file(kd(index, dir + "/end"), std::to_string(end) + "\n")
        .file(kd(index, dir + "/nr_accesses"), std::to_string(nr_accesses) + "\n")
        .file(kd(index, dir + "/age"), "3\n");
  }
};

SourceOptions options_for(const KernelTree& tree) {
  SourceOptions options;
  options.root = &tree.root();
  options.interval = std::chrono::milliseconds(2000);
  return options;
}

TEST(DamonSource, StartWritesOneMonitoringOnlyKdamond) {
  DamonTree tree;
  auto source = make_damon_source_detailed(options_for(tree));
  source->start({4242});

  EXPECT_EQ(tree.read(kAdmin + "/nr_kdamonds"), "1");
  EXPECT_EQ(tree.at(0, "/contexts/nr_contexts"), "1");
  EXPECT_EQ(tree.at(0, "/contexts/0/operations"), "vaddr");
  const std::string attrs = "/contexts/0/monitoring_attrs";
  EXPECT_EQ(tree.at(0, attrs + "/intervals/aggr_us"), "2000000");
  EXPECT_EQ(tree.at(0, attrs + "/intervals/sample_us"), "100000");
  EXPECT_EQ(tree.at(0, attrs + "/intervals/update_us"), "1000000");
  EXPECT_EQ(tree.at(0, attrs + "/nr_regions/min"), "10");
  EXPECT_EQ(tree.at(0, attrs + "/nr_regions/max"), "1000");
  EXPECT_EQ(tree.at(0, "/contexts/0/targets/nr_targets"), "1");
  EXPECT_EQ(tree.at(0, "/contexts/0/targets/0/pid_target"), "4242");
  EXPECT_EQ(tree.at(0, "/contexts/0/schemes/nr_schemes"), "1");
  const std::string pattern = "/contexts/0/schemes/0/access_pattern";
  EXPECT_EQ(tree.at(0, "/contexts/0/schemes/0/action"), "stat");
  EXPECT_EQ(tree.at(0, pattern + "/sz/min"), "0");
  EXPECT_EQ(tree.at(0, pattern + "/sz/max"), "18446744073709551615");  // ULONG_MAX
  EXPECT_EQ(tree.at(0, pattern + "/nr_accesses/min"), "0");
  EXPECT_EQ(tree.at(0, pattern + "/nr_accesses/max"), "4294967295");  // UINT_MAX
  EXPECT_EQ(tree.at(0, pattern + "/age/min"), "0");
  EXPECT_EQ(tree.at(0, pattern + "/age/max"), "4294967295");
  EXPECT_EQ(tree.at(0, "/state"), "on");

  source->stop();
  EXPECT_EQ(tree.at(0, "/state"), "off");
  EXPECT_EQ(tree.read(kAdmin + "/nr_kdamonds"), "0");
  EXPECT_TRUE(source->stop_errors().empty());
}

// tried_regions has no target index, so each pid gets its own kdamond.
TEST(DamonSource, OneKdamondPerPid) {
  DamonTree tree(2);
  auto source = make_damon_source(options_for(tree));
  source->start({4242, 4343});
  EXPECT_EQ(tree.read(kAdmin + "/nr_kdamonds"), "2");
  EXPECT_EQ(tree.at(0, "/contexts/0/targets/0/pid_target"), "4242");
  EXPECT_EQ(tree.at(1, "/contexts/0/targets/0/pid_target"), "4343");
  EXPECT_EQ(tree.at(0, "/state"), "on");
  EXPECT_EQ(tree.at(1, "/state"), "on");
  source->stop();
  EXPECT_EQ(tree.at(0, "/state"), "off");
  EXPECT_EQ(tree.at(1, "/state"), "off");
  EXPECT_EQ(tree.read(kAdmin + "/nr_kdamonds"), "0");
}

TEST(DamonSource, ExistingKdamondIsLeftUntouched) {
  DamonTree tree(1, 1);
  tree.file(kd(0, "/state"), "on\n").file(kd(0, "/contexts/0/operations"), "paddr\n");
  const auto before = tree.snapshot();
  auto source = make_damon_source(options_for(tree));
  try {
    source->start({4242});
    FAIL() << "start() succeeded with a foreign kdamond";
  } catch (const SourceError& error) {
    EXPECT_THAT(error.what(), HasSubstr("1 kdamond(s) exist, not tier's: left untouched"));
  }
  source->stop();
  source.reset();
  EXPECT_EQ(tree.snapshot(), before);
}

TEST(DamonSource, MissingVaddrIsRefusedAndCleanedUp) {
  DamonTree tree;
  add_kdamond(tree, 0, "paddr");
  auto source = make_damon_source(options_for(tree));
  EXPECT_THROW(
      {
        try {
          source->start({4242});
        } catch (const SourceError& error) {
          EXPECT_THAT(error.what(), HasSubstr("no DAMON vaddr operations"));
          EXPECT_THAT(error.what(), HasSubstr("lists: paddr"));
          throw;
        }
      },
      SourceError);
  EXPECT_EQ(tree.at(0, "/state"), "off\n");  // never turned on, so never written
  EXPECT_EQ(tree.read(kAdmin + "/nr_kdamonds"), "0");
}

TEST(DamonSource, FailedWriteRemovesTheKdamondsItCreated) {
  DamonTree tree;
  tree.remove(kd(0, "/contexts/0/targets/0/pid_target"));  // the kernel refusing a write
  auto source = make_damon_source(options_for(tree));
  try {
    source->start({4242});
    FAIL() << "start() succeeded although a write failed";
  } catch (const SourceError& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("writing '4242' to " + kd(0, "/contexts/0/targets/0/pid_target") +
                          " failed: ENOENT"));
  }
  EXPECT_FALSE(tree.exists(kd(0, "/contexts/0/targets/0/pid_target")));  // never created
  EXPECT_EQ(tree.at(0, "/state"), "off\n");
  EXPECT_EQ(tree.read(kAdmin + "/nr_kdamonds"), "0");
}

TEST(DamonSource, VanishedProcessAtStartWritesNothing) {
  DamonTree tree;
  const auto before = tree.snapshot();
  auto source = make_damon_source(options_for(tree));
  EXPECT_THROW(source->start({999999}), SourceError);
  EXPECT_EQ(tree.snapshot(), before);
}

TEST(DamonSource, PollTurnsTriedRegionsIntoRegionSamples) {
  DamonTree tree;
  auto source = make_damon_source(options_for(tree));
  source->start({4242});
  tree.region(0, 0, 0x10000000, 0x10200000, 7);
  tree.region(0, 1, 0x10200000, 0x10400000, 0);  // not accessed: no sample
  tree.region(0, 2, 0x7ffd0000, 0x7ffd4000, 20);

  std::vector<AccessSample> samples;
  PollResult result = source->poll(samples);
  EXPECT_TRUE(result.active);
  EXPECT_EQ(tree.at(0, "/state"), "update_schemes_tried_regions");
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].addr, 0x10000000u);
  EXPECT_EQ(samples[0].length, 0x200000u);
  EXPECT_EQ(samples[0].weight, 7u);
  EXPECT_EQ(samples[1].addr, 0x7ffd0000u);
  EXPECT_EQ(samples[1].length, 0x4000u);
  EXPECT_EQ(samples[1].weight, 20u);
  for (const AccessSample& sample : samples) {
    EXPECT_EQ(sample.pid, 4242u);
    EXPECT_EQ(sample.kind, SampleKind::region);
    EXPECT_NE(sample.time_ns, 0u);
  }
  EXPECT_EQ(source->counters().samples, 2u);
  EXPECT_EQ(source->counters().polls, 1u);
}

TEST(DamonSource, KdamondThatStoppedItselfMakesTheSourceInactive) {
  DamonTree tree;
  auto source = make_damon_source(options_for(tree));
  source->start({4242});
  tree.file(kd(0, "/state"), "off\n");  // what the kernel shows once pid 4242 exited
  tree.region(0, 0, 0x10000000, 0x10200000, 7);

  std::vector<AccessSample> samples;
  PollResult result = source->poll(samples);
  EXPECT_FALSE(result.active);
  EXPECT_THAT(result.stopped_reason, HasSubstr("kdamond stopped: tracked processes exited"));
  EXPECT_THAT(result.stopped_reason, HasSubstr("4242"));
  EXPECT_TRUE(samples.empty());
  EXPECT_EQ(tree.at(0, "/state"), "off\n");  // no command written to a stopped kdamond

  source->stop();
  EXPECT_EQ(tree.at(0, "/state"), "off\n");  // already off: "off" would fail with EPERM
  EXPECT_EQ(tree.read(kAdmin + "/nr_kdamonds"), "0");
}

TEST(DamonSource, OneOfTwoProcessesExitingKeepsTheOtherMonitored) {
  DamonTree tree(2);
  auto source = make_damon_source(options_for(tree));
  source->start({4242, 4343});
  tree.file(kd(0, "/state"), "off\n");
  tree.region(1, 0, 0x20000000, 0x20001000, 3);
  std::vector<AccessSample> samples;
  EXPECT_TRUE(source->poll(samples).active);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].pid, 4343u);
}

// Where DAMON vaddr runs with a free slot (the 6.12 guest, not the build
// machine): monitor this process while a thread keeps touching a buffer, see
// a region over the buffer, and leave no kdamond behind.
TEST(DamonSource, LiveMonitorsThisProcess) {
  SourceAvailability availability = damon_availability(SysRoot("/"));
  if (!availability.available) GTEST_SKIP() << availability.reason;
  constexpr std::size_t kBytes = std::size_t{16} << 20;
  void* area = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(area, MAP_FAILED);
  std::memset(area, 1, kBytes);
  std::atomic<bool> done{false};
  std::thread toucher([&] {
    auto* bytes = static_cast<volatile char*>(area);
    while (!done) {
      for (std::size_t i = 0; i < kBytes; i += 4096) bytes[i] = static_cast<char>(bytes[i] + 1);
    }
  });
  SourceOptions options;
  options.interval = std::chrono::milliseconds(200);
  auto source = make_damon_source_detailed(options);
  source->start({getpid()});
  const auto base = reinterpret_cast<std::uint64_t>(area);
  bool seen = false;
  for (int poll = 0; poll < 25 && !seen; ++poll) {
    std::vector<AccessSample> samples;
    ASSERT_TRUE(source->poll(samples).active);
    for (const AccessSample& sample : samples) {
      EXPECT_EQ(sample.pid, static_cast<std::uint32_t>(getpid()));
      if (sample.addr < base + kBytes && sample.addr + sample.length > base) seen = true;
    }
  }
  done = true;
  toucher.join();
  source->stop();
  EXPECT_TRUE(source->stop_errors().empty());
  EXPECT_EQ(SysRoot("/").read_int("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"), 0);
  EXPECT_TRUE(seen) << "no accessed region over the touched buffer in 25 aggregations";
  munmap(area, kBytes);
}

TEST(DamonSettings, SamplingIsATwentiethOfAggregation) {
  DamonSettings settings = damon_settings(std::chrono::milliseconds(100));
  EXPECT_EQ(settings.aggr_us, 100000u);
  EXPECT_EQ(settings.sample_us, 5000u);
  EXPECT_EQ(settings.update_us, 1000000u);
  EXPECT_THROW(damon_settings(std::chrono::milliseconds(0)), SourceError);
}

TEST(DamonAvailability, FreeSlotWithVaddrIsAvailable) {
  DamonTree tree(0);
  tree.file("/proc/kallsyms", "0000000000000000 t damon_va_three_regions\n");
  SourceAvailability availability = damon_availability(tree.root());
  EXPECT_TRUE(availability.available) << availability.reason;
}

TEST(DamonAvailability, ExistingKdamondOrNoVaddrIsNot) {
  DamonTree busy(1, 1);
  busy.file(kd(0, "/state"), "on\n");
  SourceAvailability availability = damon_availability(busy.root());
  EXPECT_FALSE(availability.available);
  EXPECT_THAT(availability.reason, HasSubstr("1 kdamond(s) exist, not tier's: left untouched"));

  DamonTree paddr_only(0);
  paddr_only.file("/proc/kallsyms", "0000000000000000 t damon_pa_check_accesses\n");
  availability = damon_availability(paddr_only.root());
  EXPECT_FALSE(availability.available);
  EXPECT_THAT(availability.reason, HasSubstr("no DAMON vaddr"));

  test::KernelTree none;
  availability = damon_availability(none.root());
  EXPECT_FALSE(availability.available);
  EXPECT_THAT(availability.reason, HasSubstr("no /sys/kernel/mm/damon/admin"));
}

// This machine kind (environment.md): DAMON paddr only and its own kdamond
// running. The probe must say so and change nothing.
TEST(DamonAvailability, LiveHostProbeReadsOnly) {
  SysRoot live("/");
  auto nr = live.read_int("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds");
  if (!nr || *nr == 0) GTEST_SKIP() << "no foreign kdamond on this machine";
  auto state = live.read("/sys/kernel/mm/damon/admin/kdamonds/0/state");
  SourceAvailability availability = damon_availability(live);
  std::cout << "damon: " << availability.reason << '\n';
  EXPECT_FALSE(availability.available);
  EXPECT_THAT(availability.reason,
              HasSubstr(std::to_string(*nr) + " kdamond(s) exist, not tier's: left untouched"));
  EXPECT_EQ(live.read_int("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"), nr);
  EXPECT_EQ(live.read("/sys/kernel/mm/damon/admin/kdamonds/0/state"), state);
  auto avail = live.read("/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/avail_operations");
  if (avail && avail->find("vaddr") == std::string::npos) {
    EXPECT_THAT(availability.reason, HasSubstr("no DAMON vaddr"));
  }
}

}  // namespace
}  // namespace tier::heat
