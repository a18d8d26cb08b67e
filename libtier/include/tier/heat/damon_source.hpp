// DAMON virtual-address monitoring as a heat source ("damon"), beyond the
// factory in tier/heat/sources.hpp: the settings it gives the kdamonds and
// the report of its clean-up.
//
// Contract: the source only ever runs kdamonds it created itself. It starts
// only when /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds is 0: writing
// nr_kdamonds recreates every kdamond directory (wiping another user's setup)
// and fails with EBUSY while one runs, so any existing kdamond makes the
// source unavailable and start() throws without writing anything. It creates
// one kdamond per tracked pid (one context, operations vaddr, one target, one
// `stat` scheme matching every region), because a scheme's tried_regions
// directory carries no target index: with several targets in one context the
// regions could not be attributed to their process. stop() turns off and
// removes exactly those kdamonds (state off, then nr_kdamonds 0).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tier/heat/source.hpp"

namespace tier::heat {

/// monitoring_attrs of each kdamond, in the units of the sysfs files.
struct DamonSettings {
  std::uint64_t sample_us = 0;          // intervals/sample_us: aggregation / 20
  std::uint64_t aggr_us = 0;            // intervals/aggr_us: the source's epoch
  std::uint64_t update_us = 1'000'000;  // intervals/update_us: re-read the address layout every 1 s
  std::uint64_t min_nr_regions = 10;    // nr_regions/min
  std::uint64_t max_nr_regions = 1000;  // nr_regions/max
};

/// Settings for an aggregation interval; throws SourceError unless interval >= 1 ms.
DamonSettings damon_settings(std::chrono::milliseconds interval);

class DamonSource : public HeatSource {
 public:
  /// What stop() could not undo ("writing off to .../kdamonds/0/state failed: EBUSY ..."),
  /// also printed to stderr since stop() cannot throw; empty after a clean stop.
  virtual std::vector<std::string> stop_errors() const = 0;
};

/// The "damon" source with its DAMON-specific report (make_damon_source() returns the same).
std::unique_ptr<DamonSource> make_damon_source_detailed(const SourceOptions& options);

}  // namespace tier::heat
