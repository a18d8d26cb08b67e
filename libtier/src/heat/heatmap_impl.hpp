// HeatMap::Impl: the state behind tier::heat::HeatMap, shared by heatmap.cpp
// (ingest, decay, budget) and heatmap_queries.cpp (hottest, coldest, ranges,
// histogram).
//
// Invariants: memory_bytes() <= budget (except when the tracked-range list
// alone outgrows it, see docs/heatmap.md); every key in `table` is
// addr >> shift; `tracked` is sorted, non-overlapping and non-adjacent.
#pragma once

#include <cstdint>
#include <vector>

#include "heat/heatmap_table.hpp"
#include "tier/heat/heatmap.hpp"

namespace tier::heat {
namespace detail {

/// Address range of a granule index at one resolution. The end saturates at
/// 2^64 - 1: HeatRange::end cannot hold 2^64.
struct Granules {
  unsigned shift;
  std::uint64_t start(std::uint64_t key) const { return key << shift; }
  std::uint64_t end(std::uint64_t key) const {
    return key == (~std::uint64_t{0} >> shift) ? ~std::uint64_t{0} : (key + 1) << shift;
  }
};

}  // namespace detail

struct HeatMap::Impl {
  explicit Impl(HeatMapConfig c);

  HeatMapConfig config;
  std::size_t budget;
  unsigned shift;
  detail::GranuleTable table;
  std::vector<AddressRange> tracked;
  std::uint64_t epochs = 0;

  std::size_t memory_bytes() const;
  /// Adds `score` to the granule holding `addr`, growing or coarsening first
  /// when the table is full.
  void credit(std::uint64_t addr, double score);
  /// Doubles the table if the budget allows, else coarsens until one more
  /// granule fits.
  void make_room();
  /// Rebuilds the table at `new_shift` (>= shift: neighbours merge, scores
  /// add) with `capacity` slots; the entries must fit.
  void rebuild(unsigned new_shift, std::size_t capacity);
  /// Recomputes max_capacity, then coarsens and shrinks the table until
  /// memory_bytes() fits the budget again (the tracked-range list counts).
  void fit_budget();
  /// Largest table capacity whose memory_bytes() stays within the budget
  /// (cached: the per-sample path reads it).
  std::size_t max_capacity = detail::GranuleTable::kMinCapacity;

  /// The scored granules sorted by key (scratch for the queries).
  std::vector<detail::GranuleTable::Slot> sorted_entries() const;
  detail::Granules granules() const { return {shift}; }
};

}  // namespace tier::heat
