// HeatMap and CrossNumaMatrix (tier/heat/heatmap.hpp): exact scores after
// add and decay, coarsening within the memory budget, the queries on
// constructed access patterns, and the cross-NUMA shares.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "tier/heat/heatmap.hpp"

namespace tier::heat {
namespace {

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t kBase = 0x7f0000000000;  // a typical mmap address
constexpr std::uint64_t kTop = std::numeric_limits<std::uint64_t>::max();

std::uint64_t page(std::uint64_t n) {
  return kBase + n * kPage;
}

HeatMap small_map(double decay = 0.5, double forget_below = 1e-3) {
  HeatMapConfig config;
  config.decay = decay;
  config.forget_below = forget_below;
  return HeatMap(config);
}

double total_score(const HeatMap& map) {
  double sum = 0;
  for (const HeatRange& r : map.ranges_above(0.0)) sum += r.score;
  return sum;
}

void expect_range(const HeatRange& r, std::uint64_t start, std::uint64_t end, double score) {
  EXPECT_EQ(r.start, start);
  EXPECT_EQ(r.end, end);
  EXPECT_DOUBLE_EQ(r.score, score);
}

TEST(HeatMap, AddsWithinAPageAndDecaysPerEpoch) {
  HeatMap map = small_map(0.5);
  map.add(page(1), 0, 4.0);
  map.add(page(1) + 100, 0, 2.0);  // same 4 KiB page
  map.add(page(2), 0, 1.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(1)), 6.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(2)), 1.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(3)), 0.0);
  EXPECT_EQ(map.scored_granules(), 2u);
  EXPECT_EQ(map.granule_bytes(), kPage);

  map.end_epoch();
  map.end_epoch();
  EXPECT_DOUBLE_EQ(map.score_at(page(1)), 1.5);
  EXPECT_DOUBLE_EQ(map.score_at(page(2)), 0.25);
  EXPECT_EQ(map.epoch(), 2u);
}

TEST(HeatMap, GranuleScoresListsEachScoredGranuleByAddress) {
  HeatMap map = small_map(0.5);
  map.add(page(7), 0, 3.0);
  map.add(page(2), 0, 1.0);
  map.add(page(3), 0, 2.0);  // adjacent to page 2, still its own entry
  const std::vector<HeatRange> granules = map.granule_scores();
  ASSERT_EQ(granules.size(), 3u);
  expect_range(granules[0], page(2), page(3), 1.0);
  expect_range(granules[1], page(3), page(4), 2.0);
  expect_range(granules[2], page(7), page(8), 3.0);
  EXPECT_DOUBLE_EQ(granules[2].density, 3.0);
}

TEST(HeatMap, ScoresBelowForgetThresholdAreDropped) {
  HeatMap map = small_map(0.5, 1.0);
  map.add(page(0), 0, 3.0);
  map.add(page(1), 0, 8.0);
  map.end_epoch();  // 1.5 and 4
  EXPECT_EQ(map.scored_granules(), 2u);
  map.end_epoch();  // 0.75 (dropped) and 2
  EXPECT_EQ(map.scored_granules(), 1u);
  EXPECT_DOUBLE_EQ(map.score_at(page(0)), 0.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(1)), 2.0);
}

// Many deletions in one pass over a crowded table: every survivor must stay
// reachable (the in-place deletion shifts entries back) and decay once.
TEST(HeatMap, DecayDropsManyEntriesAndKeepsTheRestFindable) {
  HeatMapConfig config;
  config.forget_below = 1.0;
  // A 200 KB budget: the table ends at 8192 slots, 61% full, so probe
  // clusters are long and deletions must shift entries back.
  config.tracked_bytes = std::uint64_t{200} << 20;
  HeatMap map(config);
  for (std::uint64_t i = 0; i < 5000; ++i) map.add(page(i * 7), 0, i % 2 == 0 ? 1.0 : 4.0);
  ASSERT_EQ(map.granule_bytes(), kPage);
  map.end_epoch();
  EXPECT_EQ(map.scored_granules(), 2500u);
  for (std::uint64_t i = 0; i < 5000; ++i)
    ASSERT_DOUBLE_EQ(map.score_at(page(i * 7)), i % 2 == 0 ? 0.0 : 2.0) << "page " << i * 7;
}

TEST(HeatMap, NonPositiveWeightsAreIgnored) {
  HeatMap map = small_map();
  map.add(page(0), 0, 0.0);
  map.add(page(0), 0, -1.0);
  map.add(page(0), 0, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(map.scored_granules(), 0u);
}

TEST(HeatMap, RegionSampleSpreadsItsWeightOverItsPages) {
  HeatMap map = small_map();
  map.add(page(10), 4 * kPage, 8.0);
  for (std::uint64_t i = 10; i < 14; ++i) EXPECT_DOUBLE_EQ(map.score_at(page(i)), 2.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(9)), 0.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(14)), 0.0);
  // Half a page on each side of a boundary: half the weight each.
  map.add(page(20) + kPage / 2, kPage, 2.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(20)), 1.0);
  EXPECT_DOUBLE_EQ(map.score_at(page(21)), 1.0);
}

TEST(HeatMap, CoarseningKeepsTheBudgetAndTheTotalScore) {
  HeatMapConfig config;
  config.tracked_bytes = std::uint64_t{64} << 20;  // budget: the 64 KiB minimum
  HeatMap map(config);
  const std::uint64_t pages = config.tracked_bytes / kPage;
  for (std::uint64_t i = 0; i < pages; ++i) map.add(page(i), 0, 1.0);

  EXPECT_LE(map.memory_bytes(), map.budget_bytes());
  EXPECT_GT(map.granule_bytes(), kPage);
  EXPECT_DOUBLE_EQ(total_score(map), static_cast<double>(pages));
  // Every granule holds granule_bytes / 4 KiB pages of weight 1 each.
  const double per_granule = static_cast<double>(map.granule_bytes() / kPage);
  for (std::uint64_t i = 0; i < pages; i += 997)
    ASSERT_DOUBLE_EQ(map.score_at(page(i)), per_granule);
}

TEST(HeatMap, HugeRegionCoarsensUpFrontAndKeepsItsWeight) {
  HeatMap map = small_map();
  map.add(0, std::uint64_t{1} << 40, 3.0);  // 1 TiB: 2^28 pages
  EXPECT_LE(map.memory_bytes(), map.budget_bytes());
  EXPECT_GE(map.granule_bytes(), (std::uint64_t{1} << 40) / map.scored_granules());
  EXPECT_NEAR(total_score(map), 3.0, 1e-9);
}

TEST(HeatMap, BudgetIsTheFractionOfTrackedMemoryAboveTheMinimum) {
  HeatMapConfig config;
  config.tracked_bytes = std::uint64_t{64} << 30;
  EXPECT_EQ(HeatMap(config).budget_bytes(), static_cast<std::size_t>((64ull << 30) / 1000));
  config.tracked_bytes = 1 << 20;
  EXPECT_EQ(HeatMap(config).budget_bytes(), config.min_budget_bytes);
}

TEST(HeatMap, InvalidConfigIsRejected) {
  auto with = [](auto change) {
    HeatMapConfig config;
    change(config);
    return config;
  };
  EXPECT_THROW(HeatMap(with([](HeatMapConfig& c) { c.decay = 0.0; })), std::invalid_argument);
  EXPECT_THROW(HeatMap(with([](HeatMapConfig& c) { c.decay = 1.5; })), std::invalid_argument);
  EXPECT_THROW(HeatMap(with([](HeatMapConfig& c) { c.min_granule_shift = 0; })),
               std::invalid_argument);
  EXPECT_THROW(HeatMap(with([](HeatMapConfig& c) { c.min_budget_bytes = 64; })),
               std::invalid_argument);
  EXPECT_NO_THROW(HeatMap(with([](HeatMapConfig& c) { c.decay = 1.0; })));
}

// 256 tracked pages: a single page of weight 500, a run of three pages of 100
// each, a warm run of four pages of 1 each; the rest never touched.
class HeatPattern : public ::testing::Test {
 protected:
  void SetUp() override {
    map.set_tracked_ranges({{page(0), page(256)}});
    map.add(page(50), 0, 500.0);
    for (std::uint64_t i = 10; i < 13; ++i) map.add(page(i), 0, 100.0);
    for (std::uint64_t i = 100; i < 104; ++i) map.add(page(i), 0, 1.0);
  }
  HeatMap map = small_map();
};

TEST_F(HeatPattern, HottestFindsTheHotSetExactlyAtPageResolution) {
  auto hot = map.hottest(2);
  ASSERT_EQ(hot.size(), 2u);
  expect_range(hot[0], page(50), page(51), 500.0);
  EXPECT_DOUBLE_EQ(hot[0].density, 500.0);
  expect_range(hot[1], page(10), page(13), 300.0);
  EXPECT_DOUBLE_EQ(hot[1].density, 100.0);
  EXPECT_EQ(map.hottest(10).size(), 3u);  // only three runs exist
}

TEST_F(HeatPattern, ColdestIsNeverTouchedMemoryLargestFirstThenTheWarmRun) {
  auto cold = map.coldest(5);
  ASSERT_EQ(cold.size(), 5u);
  expect_range(cold[0], page(104), page(256), 0.0);
  expect_range(cold[1], page(51), page(100), 0.0);
  expect_range(cold[2], page(13), page(50), 0.0);
  expect_range(cold[3], page(0), page(10), 0.0);
  expect_range(cold[4], page(100), page(104), 4.0);
  EXPECT_DOUBLE_EQ(cold[4].density, 1.0);
}

TEST_F(HeatPattern, ColdestIgnoresScoresOutsideTheTrackedRanges) {
  map.add(page(1000), 0, 0.5);  // not tracked: not a candidate even though coldest scored
  auto cold = map.coldest(100);
  EXPECT_EQ(cold.size(), 7u);  // 4 untouched gaps + 3 scored runs
  for (const HeatRange& r : cold) EXPECT_LE(r.end, page(256));
}

// After coarsening, granules straddle the tracked range's start: runs are
// clipped to the range, and the granule's whole score counts.
TEST(HeatMap, ColdestClipsCoarseGranulesToTheTrackedRange) {
  HeatMap map = small_map();  // 64 KiB budget: 2048 pages do not fit at 4 KiB
  map.set_tracked_ranges({{page(1), page(3000)}});
  for (std::uint64_t i = 0; i < 2048; ++i) map.add(page(i), 0, 1.0);
  ASSERT_GT(map.granule_bytes(), kPage);
  const double granules = static_cast<double>(2048 * kPage / map.granule_bytes());
  auto cold = map.coldest(2);
  ASSERT_EQ(cold.size(), 2u);
  expect_range(cold[0], page(2048), page(3000), 0.0);
  expect_range(cold[1], page(1), page(2048), 2048.0);
  EXPECT_DOUBLE_EQ(cold[1].density, 2048.0 / granules);
}

TEST_F(HeatPattern, ZeroKAsksForNothing) {
  EXPECT_TRUE(map.hottest(0).empty());
  EXPECT_TRUE(map.coldest(0).empty());
}

TEST(HeatMap, RangesAboveMergesAdjacentGranules) {
  HeatMap map = small_map();
  for (std::uint64_t i = 1; i < 4; ++i) map.add(page(i), 0, 5.0);
  map.add(page(4), 0, 1.0);
  map.add(page(6), 0, 5.0);
  auto above5 = map.ranges_above(5.0);
  ASSERT_EQ(above5.size(), 2u);
  expect_range(above5[0], page(1), page(4), 15.0);
  expect_range(above5[1], page(6), page(7), 5.0);
  auto above1 = map.ranges_above(1.0);
  ASSERT_EQ(above1.size(), 2u);
  expect_range(above1[0], page(1), page(5), 16.0);
  EXPECT_DOUBLE_EQ(above1[0].density, 4.0);
  EXPECT_TRUE(map.ranges_above(6.0).empty());
}

TEST(HeatMap, HistogramCountsGranulesPerLogBin) {
  HeatMap map = small_map();
  for (std::uint64_t i = 0; i < 3; ++i) map.add(page(i), 0, 1.0);
  for (std::uint64_t i = 10; i < 12; ++i) map.add(page(i), 0, 10.0);
  map.add(page(20), 0, 100.0);
  auto bins = map.histogram(3);  // edges 1, ~4.6, ~21.5, just above 100
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_DOUBLE_EQ(bins[0].low, 1.0);
  EXPECT_GT(bins[2].high, 100.0);
  EXPECT_NEAR(bins[1].low, 4.6416, 1e-3);
  EXPECT_EQ(bins[0].granules, 3u);
  EXPECT_EQ(bins[1].granules, 2u);
  EXPECT_EQ(bins[2].granules, 1u);
  EXPECT_EQ(bins[1].bytes, 2 * kPage);
  EXPECT_TRUE(map.histogram(0).empty());
}

TEST(HeatMap, HistogramOfEqualScoresPutsAllInOneBin) {
  HeatMap map = small_map();
  for (std::uint64_t i = 0; i < 4; ++i) map.add(page(i), 0, 2.0);
  std::uint64_t counted = 0;
  for (const HistogramBin& bin : map.histogram(4)) {
    EXPECT_TRUE(bin.granules == 0 || bin.granules == 4);
    counted += bin.granules;
  }
  EXPECT_EQ(counted, 4u);
}

TEST(HeatMap, EmptyMapAnswersEmpty) {
  HeatMap map = small_map();
  EXPECT_TRUE(map.hottest(3).empty());
  EXPECT_TRUE(map.coldest(3).empty());
  EXPECT_TRUE(map.ranges_above(0.0).empty());
  EXPECT_TRUE(map.histogram(8).empty());
  EXPECT_EQ(map.scored_granules(), 0u);
  map.end_epoch();
  EXPECT_EQ(map.epoch(), 1u);
  // Tracked but never touched: the whole range is the coldest run.
  map.set_tracked_ranges({{page(4), page(8)}, {page(0), page(5)}});  // overlapping: merged
  auto cold = map.coldest(3);
  ASSERT_EQ(cold.size(), 1u);
  expect_range(cold[0], page(0), page(8), 0.0);
}

TEST(HeatMap, LengthZeroAndOneMeanTheOnePageHoldingTheAddress) {
  HeatMap map = small_map();
  map.add(page(5) + 10, 0, 1.0);
  map.add(page(5) + 20, 1, 1.0);
  EXPECT_EQ(map.scored_granules(), 1u);
  EXPECT_DOUBLE_EQ(map.score_at(page(5)), 2.0);
}

TEST(HeatMap, AddressesAtTheTopOfTheAddressSpace) {
  HeatMap map = small_map();
  map.add(kTop, 0, 1.0);
  map.add(kTop - kPage + 1, 2 * kPage, 2.0);  // runs past 2^64: cut, full weight on what is left
  EXPECT_DOUBLE_EQ(map.score_at(kTop), 3.0);
  EXPECT_EQ(map.scored_granules(), 1u);
  auto hot = map.hottest(1);
  ASSERT_EQ(hot.size(), 1u);
  expect_range(hot[0], kTop - kPage + 1, kTop, 3.0);  // end saturates at 2^64 - 1
  map.set_tracked_ranges({{kTop - 2 * kPage + 1, kTop}});
  auto cold = map.coldest(2);
  ASSERT_EQ(cold.size(), 2u);
  expect_range(cold[0], kTop - 2 * kPage + 1, kTop - kPage + 1, 0.0);
  expect_range(cold[1], kTop - kPage + 1, kTop, 3.0);
}

TEST(HeatMap, MoveKeepsTheScores) {
  HeatMap a = small_map();
  a.add(page(1), 0, 2.0);
  HeatMap b = std::move(a);
  EXPECT_DOUBLE_EQ(b.score_at(page(1)), 2.0);
  HeatMap c = small_map();
  c = std::move(b);
  EXPECT_DOUBLE_EQ(c.score_at(page(1)), 2.0);
}

TEST(CrossNumaMatrix, LocalAndRemoteShares) {
  CrossNumaMatrix m;
  m.add(0, 0, 20.0);
  m.add(1, 1, 10.0);
  m.add(1, 0, 10.0);
  EXPECT_DOUBLE_EQ(m.local(), 30.0);
  EXPECT_DOUBLE_EQ(m.remote(), 10.0);
  EXPECT_DOUBLE_EQ(m.local_share(), 0.75);
  EXPECT_DOUBLE_EQ(m.remote_share(), 0.25);
  EXPECT_DOUBLE_EQ(m.at(1, 0), 10.0);
  EXPECT_DOUBLE_EQ(m.at(0, 1), 0.0);
  EXPECT_DOUBLE_EQ(m.at(5, 0), 0.0);  // beyond the nodes seen
  EXPECT_EQ(m.max_node(), 1);
}

TEST(CrossNumaMatrix, GrowsToTheLargestNodeSeen) {
  CrossNumaMatrix m;
  m.add(0, 3, 2.0);
  EXPECT_EQ(m.max_node(), 3);
  EXPECT_DOUBLE_EQ(m.at(0, 3), 2.0);
  EXPECT_DOUBLE_EQ(m.remote_share(), 1.0);
}

TEST(CrossNumaMatrix, UnknownNodesCountAsUnresolved) {
  CrossNumaMatrix m;
  m.add(-1, 0, 1.0);
  m.add(0, -1, 1.0);
  m.add(0, 5000, 1.0);  // beyond MAX_NUMNODES: not a real node
  m.add_unresolved(4);
  EXPECT_EQ(m.unresolved(), 7u);
  EXPECT_EQ(m.max_node(), -1);
  EXPECT_DOUBLE_EQ(m.local_share(), 0.0);
  EXPECT_DOUBLE_EQ(m.remote_share(), 0.0);
}

}  // namespace
}  // namespace tier::heat
