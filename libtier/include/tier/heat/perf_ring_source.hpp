// The HeatSource both perf sources are: per-thread sampling events (see
// perf_thread_events.hpp) whose rings are drained, decoded and converted to
// AccessSample on every poll(). "perf-fault" and "pmu" differ only in the
// event they open and in how samples are classified.
//
// Contract: as tier::heat::HeatSource. The event is resolved at start(), so a
// machine without the PMU fails there with the resolver's reason. poll()
// reports inactive, with the pids, once every tracked process has exited
// (after delivering the samples still in the rings). drops = samples the
// kernel reported lost (PERF_RECORD_LOST, LOST_SAMPLES) + records that could
// not be framed or decoded.
#pragma once

#include <linux/perf_event.h>

#include <functional>
#include <memory>
#include <string>

#include "tier/heat/perf_samples.hpp"
#include "tier/heat/source.hpp"

namespace tier::heat::perf {

struct PerfSourceSpec {
  std::string name;  // "perf-fault", "pmu"
  SampleOrigin origin = SampleOrigin::software_fault;
  /// Builds the attr at start(); throws SourceError when it cannot.
  std::function<perf_event_attr(const SysRoot&)> resolve;
};

std::unique_ptr<HeatSource> make_perf_ring_source(PerfSourceSpec spec,
                                                  const SourceOptions& options);

}  // namespace tier::heat::perf
