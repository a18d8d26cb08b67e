// The "soft-dirty" source against /proc fixtures: the clear_refs writes,
// written-page samples from pagemap bit 55, vanished processes, and (where
// the kernel has soft-dirty, e.g. the 6.12 guest) this process's own writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>

#include "heat_kernel_fixture.hpp"
#include "tier/heat/heatmap.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {
namespace {

using test::KernelTree;
using test::kPage;
using test::kPresentBit;
using test::kSoftDirtyBit;
using test::kSwappedBit;
using ::testing::HasSubstr;

constexpr int kPid = 4242;
constexpr std::uint64_t kData = 0x10000000;  // rw-p, 8 pages
constexpr std::uint64_t kText = 0x10008000;  // r-xp, 2 pages: never reported
constexpr std::uint64_t kHeap = 0x20000000;  // rw-p [heap], 4 pages

struct SoftDirtyTree : KernelTree {
  explicit SoftDirtyTree(int pid = kPid) {
    const std::string proc = "/proc/" + std::to_string(pid);
    file(proc + "/maps",
         "10000000-10008000 rw-p 00000000 00:00 0 \n"
         "10008000-1000a000 r-xp 00000000 08:01 1234 /usr/bin/workload\n"
         "20000000-20004000 rw-p 00000000 00:00 0 [heap]\n"
         "7fff0000-7fff2000 r--p 00000000 00:00 0 [vvar]\n");
    file(proc + "/clear_refs", "");
    const std::uint64_t dirty = kPresentBit | kSoftDirtyBit;
    pagemap_entry(pid, kData + 0 * kPage, dirty | 0x100);
    pagemap_entry(pid, kData + 1 * kPage, dirty | 0x101);
    pagemap_entry(pid, kData + 2 * kPage, kPresentBit | 0x102);          // clean
    pagemap_entry(pid, kData + 3 * kPage, kSwappedBit | kSoftDirtyBit);  // written, then swapped
    pagemap_entry(pid, kData + 4 * kPage, kSoftDirtyBit);  // hole of a soft-dirty VMA: not a write
    pagemap_entry(pid, kData + 5 * kPage, dirty | 0x105);
    pagemap_entry(pid, kData + 6 * kPage, dirty | 0x106);
    pagemap_entry(pid, kData + 7 * kPage, dirty | 0x107);
    pagemap_entry(pid, kText, dirty | 0x200);
    pagemap_entry(pid, kHeap + 2 * kPage, dirty | 0x300);
  }
};

SourceOptions options_for(const KernelTree& tree) {
  SourceOptions options;
  options.root = &tree.root();
  return options;
}

struct PageRun {
  std::uint64_t addr, length;
  bool operator==(const PageRun&) const = default;
};

std::vector<PageRun> runs_of(const std::vector<AccessSample>& samples) {
  std::vector<PageRun> runs;
  runs.reserve(samples.size());
  for (const AccessSample& sample : samples) runs.push_back({sample.addr, sample.length});
  return runs;
}

TEST(SoftDirtySource, StartClearsTheBits) {
  SoftDirtyTree tree;
  auto source = make_soft_dirty_source(options_for(tree));
  EXPECT_EQ(source->name(), "soft-dirty");
  source->start({kPid});
  EXPECT_EQ(tree.read("/proc/4242/clear_refs"), "4");
}

TEST(SoftDirtySource, PollReportsWrittenRunsOfWritableMappingsAndClearsAgain) {
  SoftDirtyTree tree;
  auto source = make_soft_dirty_source(options_for(tree));
  source->start({kPid});
  tree.file("/proc/4242/clear_refs", "");  // so the poll's own clear is seen

  std::vector<AccessSample> samples;
  PollResult result = source->poll(samples);
  EXPECT_TRUE(result.active);
  std::vector<PageRun> expected{{kData, 2 * kPage},
                                {kData + 3 * kPage, kPage},
                                {kData + 5 * kPage, 3 * kPage},
                                {kHeap + 2 * kPage, kPage}};
  EXPECT_EQ(runs_of(samples), expected);
  for (const AccessSample& sample : samples) {
    EXPECT_EQ(sample.kind, SampleKind::written);
    EXPECT_EQ(sample.pid, 4242u);
    EXPECT_EQ(sample.weight, sample.length / kPage);  // one access per written page
  }
  EXPECT_EQ(tree.read("/proc/4242/clear_refs"), "4");
  EXPECT_EQ(source->counters().samples, 4u);
  EXPECT_EQ(source->counters().polls, 1u);
}

// The outcome the weights are for: in the HeatMap a written page has the
// same heat whether it was written alone or with its neighbours (a 48 MiB
// hot set written whole used to get 1/12288 of a sample per page, which the
// map forgot after one decay).
TEST(SoftDirtySource, AWrittenPageHasTheSameHeatAloneOrInARun) {
  SoftDirtyTree tree;
  auto source = make_soft_dirty_source(options_for(tree));
  source->start({kPid});
  std::vector<AccessSample> samples;
  source->poll(samples);
  HeatMap map(HeatMapConfig{});
  for (const AccessSample& sample : samples) map.add(sample.addr, sample.length, sample.weight);
  map.end_epoch();  // one decay (0.5) and the forget_below cut
  for (std::uint64_t page : {0, 1, 3, 5, 6, 7}) {
    EXPECT_DOUBLE_EQ(map.score_at(kData + page * kPage), 0.5) << "page " << page << " of .data";
  }
  EXPECT_DOUBLE_EQ(map.score_at(kHeap + 2 * kPage), 0.5);
  EXPECT_DOUBLE_EQ(map.score_at(kData + 2 * kPage), 0.0);  // clean
}

TEST(SoftDirtySource, VanishedProcessAtStartIsAnError) {
  SoftDirtyTree tree;
  auto source = make_soft_dirty_source(options_for(tree));
  try {
    source->start({kPid, 999999});
    FAIL() << "start() accepted a pid with no /proc entry";
  } catch (const SourceError& error) {
    EXPECT_THAT(error.what(), HasSubstr("process 999999 not found"));
  }
  EXPECT_EQ(tree.read("/proc/4242/clear_refs"), "");  // checked before any write
}

TEST(SoftDirtySource, ExitedProcessesAreDroppedThenTheSourceStops) {
  SoftDirtyTree tree;
  SoftDirtyTree other_pid_files(4343);  // same layout, copied under the first root
  test::copy_tree(other_pid_files.path("/proc/4343"), tree.path("/proc/4343"));
  auto source = make_soft_dirty_source(options_for(tree));
  source->start({kPid, 4343});

  tree.remove("/proc/4242");
  std::vector<AccessSample> samples;
  PollResult result = source->poll(samples);
  EXPECT_TRUE(result.active);
  ASSERT_FALSE(samples.empty());
  for (const AccessSample& sample : samples) EXPECT_EQ(sample.pid, 4343u);

  tree.file("/proc/4343/maps", "");  // a zombie: /proc/PID stays, the address space is gone
  samples.clear();
  result = source->poll(samples);
  EXPECT_FALSE(result.active);
  EXPECT_THAT(result.stopped_reason, HasSubstr("process 4242 exited"));
  EXPECT_THAT(result.stopped_reason, HasSubstr("process 4343 exited"));
  EXPECT_TRUE(samples.empty());
}

// tierd's one source follows the process set in place: an added process's
// bits are cleared at once (its first poll reports this epoch's writes), a
// removed one is no longer read, and a gone one is dropped, not an error.
TEST(SoftDirtySource, RetargetClearsAddedProcessesAndStopsReadingRemovedOnes) {
  SoftDirtyTree tree;
  SoftDirtyTree other_pid_files(4343);
  test::copy_tree(other_pid_files.path("/proc/4343"), tree.path("/proc/4343"));
  auto source = make_soft_dirty_source(options_for(tree));
  source->start({kPid});
  EXPECT_EQ(tree.read("/proc/4343/clear_refs"), "");

  ASSERT_TRUE(source->retarget({4343, 999999}));
  EXPECT_EQ(tree.read("/proc/4343/clear_refs"), "4");
  std::vector<AccessSample> samples;
  PollResult result = source->poll(samples);
  EXPECT_TRUE(result.active);
  ASSERT_FALSE(samples.empty());
  for (const AccessSample& sample : samples) EXPECT_EQ(sample.pid, 4343u);
}

TEST(SoftDirtyAvailability, FixtureRootNeedsTheFiles) {
  KernelTree tree;
  EXPECT_FALSE(soft_dirty_availability(tree.root()).available);
  tree.file("/proc/self/clear_refs", "").file("/proc/self/pagemap", "");
  EXPECT_TRUE(soft_dirty_availability(tree.root()).available);
}

// The live verdict comes from the doctor's round trip; on the build machine
// (no CONFIG_MEM_SOFT_DIRTY) it must fail, wherever it works it must see
// this process's writes.
TEST(SoftDirtyAvailability, LiveHostProbe) {
  SourceAvailability availability = soft_dirty_availability(SysRoot("/"));
  std::cout << "soft-dirty: " << availability.reason << '\n';
  auto config = test::run_command({"sh", "-c", "zcat /proc/config.gz 2>/dev/null"});
  if (config.out.find("# CONFIG_MEM_SOFT_DIRTY is not set") != std::string::npos) {
    EXPECT_FALSE(availability.available);
    EXPECT_THAT(availability.reason, HasSubstr("round trip fails"));
  } else if (config.out.find("CONFIG_MEM_SOFT_DIRTY=y") != std::string::npos) {
    EXPECT_TRUE(availability.available) << availability.reason;
  }
}

TEST(SoftDirtySource, LiveSeesThisProcessWrites) {
  SourceAvailability availability = soft_dirty_availability(SysRoot("/"));
  if (!availability.available) GTEST_SKIP() << availability.reason;
  constexpr std::size_t kPages = 16;
  void* area = mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  ASSERT_NE(area, MAP_FAILED);
  auto* bytes = static_cast<volatile char*>(area);
  auto source = make_soft_dirty_source({});
  source->start({getpid()});
  bytes[3 * kPage] = 1;  // pages 3 and 4 only
  bytes[4 * kPage] = 1;
  std::vector<AccessSample> samples;
  EXPECT_TRUE(source->poll(samples).active);
  const auto base = reinterpret_cast<std::uint64_t>(area);
  bool covered = false;
  for (const AccessSample& sample : samples) {
    // No page of the area other than 3 and 4 may be reported.
    if (sample.addr < base + kPages * kPage && sample.addr + sample.length > base) {
      EXPECT_EQ(sample.addr, base + 3 * kPage);
      EXPECT_EQ(sample.length, 2 * kPage);
      covered = true;
    }
  }
  EXPECT_TRUE(covered);
  munmap(area, kPages * kPage);
}

}  // namespace
}  // namespace tier::heat
