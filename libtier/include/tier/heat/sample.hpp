// AccessSample: one piece of access evidence from a heat source.
//
// Every source (eBPF page faults, perf software faults, PEBS/IBS, DAMON,
// soft-dirty, idle-page tracking) reduces what it sees to these records, so the
// HeatMap and the cross-NUMA matrix never care where a sample came from.
// Addresses are virtual addresses of the tracked process (`pid`).
#pragma once

#include <cstdint>

namespace tier::heat {

/// What one sample is evidence of.
enum class SampleKind : std::uint8_t {
  first_touch,  // fault on a not-present page: allocation (or a refault after reclaim)
  hint_fault,   // repeat fault: NUMA hint fault of the balancing scan, COW, or a page seen before
  pmu_load,     // precise PMU load sample (PEBS load latency / IBS op)
  pmu_store,    // precise PMU store sample
  region,       // a monitored region with an access count (DAMON): [addr, addr + length)
  written,      // soft-dirty: page written since the last clear_refs
  accessed,     // idle-page tracking: page referenced since it was marked idle
  sw_fault,     // perf software page-fault event (first touch and repeat alike)
};

/// "first_touch", "hint_fault", ... (stable: used in JSON).
const char* to_string(SampleKind kind);

struct AccessSample {
  std::uint64_t addr = 0;     // virtual address in process `pid`
  std::uint64_t length = 0;   // bytes covered; 0 = the one base page holding addr
  std::uint64_t time_ns = 0;  // CLOCK_MONOTONIC when known, else 0
  std::uint32_t pid = 0;      // thread group id of the accessing process
  std::uint32_t tid = 0;      // thread id, 0 when unknown
  std::int32_t cpu = -1;      // CPU the access ran on, -1 when unknown
  std::int32_t node = -1;     // memory node of the page when the source knows it, else -1
  std::uint32_t weight = 1;   // accesses this sample stands for (DAMON: nr_accesses)
  std::uint32_t latency = 0;  // load latency in core cycles (PMU sources), 0 = unknown
  SampleKind kind = SampleKind::sw_fault;
};

}  // namespace tier::heat
