// The "idle-page" source against a fixture page_idle bitmap: the bits start()
// sets, the pages poll() reports after the "kernel" clears some bits, and the
// refusals (no bitmap, hidden PFNs, vanished process).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "heat_kernel_fixture.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {
namespace {

using test::KernelTree;
using test::kPage;
using test::kPresentBit;
using ::testing::HasSubstr;

constexpr int kPid = 4242;
constexpr std::uint64_t kData = 0x10000000;   // rw-p, 6 pages
constexpr std::uint64_t kGuard = 0x10006000;  // ---p guard page: never tracked
const std::string kBitmap = "/sys/kernel/mm/page_idle/bitmap";

// PFNs of the data pages (page 2 not present): 0x100/0x101 share word 4,
// 0x1c0/0x1c1 are word 7, 0x300 is word 12, like the guard's 0x305.
constexpr std::uint64_t kPfn[6] = {0x100, 0x101, 0, 0x1c0, 0x1c1, 0x300};
constexpr std::uint64_t kGuardPfn = 0x305;

struct IdleTree : KernelTree {
  IdleTree() {
    file("/proc/4242/maps",
         "10000000-10006000 rw-p 00000000 00:00 0 \n"
         "10006000-10007000 ---p 00000000 00:00 0 \n");
    for (int i = 0; i < 6; ++i) {
      if (kPfn[i] != 0) pagemap_entry(kPid, kData + i * kPage, kPresentBit | kPfn[i]);
    }
    pagemap_entry(kPid, kGuard, kPresentBit | kGuardPfn);
    file(kBitmap, std::string(4096, '\0'));  // PFNs 0-32767, all not idle
  }
  std::uint64_t word(std::uint64_t index) const { return word_of(path(kBitmap), index * 8); }
  void set_word(std::uint64_t index, std::uint64_t value) {
    word_at(path(kBitmap), index * 8, value);
  }
};

SourceOptions options_for(const KernelTree& tree) {
  SourceOptions options;
  options.root = &tree.root();
  return options;
}

TEST(IdlePageSource, StartMarksExactlyThePresentPagesIdle) {
  IdleTree tree;
  auto source = make_idle_page_source(options_for(tree));
  EXPECT_EQ(source->name(), "idle-page");
  source->start({kPid});
  for (std::uint64_t w = 0; w < 4096 / 8; ++w) {
    std::uint64_t expected = w == 4 ? 0b11 : w == 7 ? 0b11 : w == 12 ? 0b1 : 0;  // not 1<<5: guard
    EXPECT_EQ(tree.word(w), expected) << "word " << w;
  }
}

TEST(IdlePageSource, PollReportsPagesWhoseIdleBitTheKernelCleared) {
  IdleTree tree;
  auto source = make_idle_page_source(options_for(tree));
  source->start({kPid});
  // The kernel clears a page's idle bit when it is accessed: pages 1, 3, 4.
  tree.set_word(4, 0b01);
  tree.set_word(7, 0b00);

  std::vector<AccessSample> samples;
  PollResult result = source->poll(samples);
  EXPECT_TRUE(result.active);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].addr, kData + 1 * kPage);
  EXPECT_EQ(samples[0].length, kPage);
  EXPECT_EQ(samples[1].addr, kData + 3 * kPage);
  EXPECT_EQ(samples[1].length, 2 * kPage);
  for (const AccessSample& sample : samples) {
    EXPECT_EQ(sample.kind, SampleKind::accessed);
    EXPECT_EQ(sample.pid, 4242u);
  }
  // Marked idle again for the next epoch.
  EXPECT_EQ(tree.word(4), 0b11u);
  EXPECT_EQ(tree.word(7), 0b11u);
  EXPECT_EQ(source->counters().samples, 2u);

  samples.clear();
  EXPECT_TRUE(source->poll(samples).active);
  EXPECT_TRUE(samples.empty());  // nothing accessed since
}

TEST(IdlePageSource, PageFaultedInSinceTheMarkCountsAsAccessed) {
  IdleTree tree;
  auto source = make_idle_page_source(options_for(tree));
  source->start({kPid});
  tree.pagemap_entry(kPid, kData + 2 * kPage, kPresentBit | 0x140);  // word 5, never marked
  std::vector<AccessSample> samples;
  source->poll(samples);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].addr, kData + 2 * kPage);
  EXPECT_EQ(tree.word(5), 0b1u);
}

TEST(IdlePageSource, HiddenPfnsAreRefused) {
  IdleTree tree;
  tree.pagemap_entry(kPid, kData, kPresentBit);  // what pagemap shows without CAP_SYS_ADMIN
  auto source = make_idle_page_source(options_for(tree));
  try {
    source->start({kPid});
    FAIL() << "start() accepted hidden PFNs";
  } catch (const SourceError& error) {
    EXPECT_THAT(error.what(), HasSubstr("CAP_SYS_ADMIN"));
  }
  EXPECT_EQ(tree.word(4), 0u);  // nothing marked
}

TEST(IdlePageSource, NoBitmapIsRefused) {
  IdleTree tree;
  tree.remove(kBitmap);
  auto source = make_idle_page_source(options_for(tree));
  try {
    source->start({kPid});
    FAIL() << "start() succeeded without a bitmap";
  } catch (const SourceError& error) {
    EXPECT_THAT(error.what(), HasSubstr("CONFIG_IDLE_PAGE_TRACKING off"));
  }
}

TEST(IdlePageSource, VanishedProcess) {
  IdleTree tree;
  auto source = make_idle_page_source(options_for(tree));
  EXPECT_THROW(source->start({999999}), SourceError);
  source->start({kPid});
  tree.remove("/proc/4242");
  std::vector<AccessSample> samples;
  PollResult result = source->poll(samples);
  EXPECT_FALSE(result.active);
  EXPECT_THAT(result.stopped_reason, HasSubstr("process 4242 exited"));
  EXPECT_TRUE(samples.empty());
}

TEST(IdlePageAvailability, FollowsTheBitmap) {
  IdleTree tree;
  EXPECT_TRUE(idle_page_availability(tree.root()).available);
  tree.remove(kBitmap);
  SourceAvailability availability = idle_page_availability(tree.root());
  EXPECT_FALSE(availability.available);
  EXPECT_THAT(availability.reason, HasSubstr("no /sys/kernel/mm/page_idle/bitmap"));
}

TEST(IdlePageAvailability, LiveHostProbe) {
  SourceAvailability availability = idle_page_availability(SysRoot("/"));
  std::cout << "idle-page: " << availability.reason << '\n';
  if (!SysRoot("/").exists(kBitmap)) {
    EXPECT_FALSE(availability.available);
    EXPECT_THAT(availability.reason, HasSubstr("CONFIG_IDLE_PAGE_TRACKING off"));
  } else if (geteuid() == 0) {
    EXPECT_TRUE(availability.available) << availability.reason;
  }
}

}  // namespace
}  // namespace tier::heat
