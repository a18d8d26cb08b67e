// HeatMap: decayed access scores of one workload's address space, and the
// cross-NUMA access matrix.
//
// Contract:
//  - add() credits `weight` accesses to the granule(s) covering
//    [addr, addr + max(length, 1)); a region sample spreads its weight evenly
//    over the bytes it covers (equal shares for the granules of a
//    granule-aligned region; a region running past 2^64 - 1 is cut there).
//    Weights that are not positive and finite are ignored.
//  - end_epoch() multiplies every score by `decay` (exponential decay per
//    epoch); scores that fall below `forget_below` are dropped.
//  - Memory stays within budget_bytes() = max(min_budget_bytes,
//    memory_fraction x tracked_bytes): when it would not, granules double in
//    size (neighbours merge, scores add) until it does, as DAMON's regions
//    coarsen. granule_bytes() tells the current resolution.
//  - hottest(k) / coldest(k) return ranges of adjacent granules with their
//    scores (coldest considers the tracked ranges, so never-touched memory is
//    the coldest, score 0). A range ending at the top of the address space
//    ends at 2^64 - 1 (HeatRange::end cannot hold 2^64).
//  - The constructor throws std::invalid_argument for a config it cannot
//    honour (decay outside (0, 1], min_granule_shift outside [1, 62], a
//    budget below the smallest map). Design notes: docs/heatmap.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tier::heat {

struct HeatMapConfig {
  double decay = 0.5;               // score multiplier per epoch, in (0, 1]
  double forget_below = 1e-3;       // scores below this are dropped at end_epoch()
  std::uint64_t tracked_bytes = 0;  // memory the map stands for (sets the budget)
  double memory_fraction = 0.001;   // budget = fraction x tracked_bytes ...
  std::size_t min_budget_bytes = std::size_t{64} << 10;  // ... but never below this
  unsigned min_granule_shift = 12;                       // finest resolution: 4 KiB pages
};

struct AddressRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  // exclusive
};

struct HeatRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  // exclusive
  double score = 0;       // sum of the granules' scores
  double density = 0;     // score per granule (what ranks ranges)
};

struct HistogramBin {
  double low = 0, high = 0;  // score interval [low, high)
  std::uint64_t granules = 0;
  std::uint64_t bytes = 0;
};

class HeatMap {
 public:
  explicit HeatMap(HeatMapConfig config);
  ~HeatMap();
  HeatMap(HeatMap&&) noexcept;
  HeatMap& operator=(HeatMap&&) noexcept;

  /// The memory the workload has (its mappings); coldest() ranks within it.
  void set_tracked_ranges(std::vector<AddressRange> ranges);

  void add(std::uint64_t addr, std::uint64_t length, double weight);
  void end_epoch();

  /// Up to k maximal runs of adjacent scored granules, densest first.
  std::vector<HeatRange> hottest(std::size_t k) const;
  /// Up to k runs of tracked memory with the lowest density, coldest first.
  std::vector<HeatRange> coldest(std::size_t k) const;
  /// Granules with score >= threshold, merged into maximal adjacent runs, by address.
  std::vector<HeatRange> ranges_above(double threshold) const;
  /// Every scored granule as its own range (score = density), by address:
  /// what a caller needs to total heat over ranges of its own (tierd's regions).
  std::vector<HeatRange> granule_scores() const;
  /// Score histogram of the scored granules, `bins` log-spaced bins.
  std::vector<HistogramBin> histogram(std::size_t bins) const;

  double score_at(std::uint64_t addr) const;
  std::size_t scored_granules() const;
  std::uint64_t granule_bytes() const;
  std::size_t memory_bytes() const;  // what the map really holds (tables included)
  std::size_t budget_bytes() const;
  std::uint64_t epoch() const;

 private:
  struct Impl;
  Impl* impl_;
};

/// Samples by CPU node of the accessing task (rows) x memory node of the page
/// (columns): numatop's local (LMA) vs remote (RMA) memory accesses without a PMU.
class CrossNumaMatrix {
 public:
  void add(int cpu_node, int memory_node, double weight);
  double local() const;        // weight where cpu_node == memory_node
  double remote() const;       // weight where they differ
  double local_share() const;  // local / (local + remote), 0 when empty
  double remote_share() const;
  /// Dense matrix over nodes 0..max seen: at(cpu_node, memory_node).
  double at(int cpu_node, int memory_node) const;
  int max_node() const;              // -1 when empty
  std::uint64_t unresolved() const;  // samples whose CPU or memory node was unknown
  void add_unresolved(std::uint64_t n) { unresolved_ += n; }

 private:
  std::vector<std::vector<double>> cells_;
  std::uint64_t unresolved_ = 0;
};

}  // namespace tier::heat
