// The concrete heat sources and their availability probes, in the order the
// `auto` selection tries them (see selection.hpp): precise PMU sampling, eBPF
// page faults (NUMA hint faults when balancing scans), DAMON vaddr, soft-dirty,
// idle-page tracking, perf software page faults.
//
// Every *_availability() only looks (files under `root`, a quick load/open
// attempt in the live case) and never leaves anything behind.
#pragma once

#include <memory>

#include "tier/heat/source.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::heat {

// eBPF user page faults (ebpf/page_fault.bpf.c): name "bpf-fault".
SourceAvailability bpf_fault_availability(const SysRoot& root);
std::unique_ptr<HeatSource> make_bpf_fault_source(const SourceOptions& options);

// perf_event precise memory sampling, PEBS or IBS: name "pmu".
SourceAvailability pmu_availability(const SysRoot& root);
std::unique_ptr<HeatSource> make_pmu_source(const SourceOptions& options);

// perf_event software page-fault sampler: name "perf-fault".
SourceAvailability perf_fault_availability(const SysRoot& root);
std::unique_ptr<HeatSource> make_perf_fault_source(const SourceOptions& options);

// DAMON virtual-address monitoring through sysfs: name "damon".
SourceAvailability damon_availability(const SysRoot& root);
std::unique_ptr<HeatSource> make_damon_source(const SourceOptions& options);

// Soft-dirty write tracking (clear_refs 4 + pagemap bit 55): name "soft-dirty".
SourceAvailability soft_dirty_availability(const SysRoot& root);
std::unique_ptr<HeatSource> make_soft_dirty_source(const SourceOptions& options);

// Idle-page tracking (page_idle/bitmap + pagemap PFNs): name "idle-page".
SourceAvailability idle_page_availability(const SysRoot& root);
std::unique_ptr<HeatSource> make_idle_page_source(const SourceOptions& options);

}  // namespace tier::heat
