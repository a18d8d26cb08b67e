// "perf-fault": PERF_COUNT_SW_PAGE_FAULTS sampled with the faulting address.
// Works without any PMU (a software event), on every fault the tracked
// threads take: first touches and repeat faults alike, so its samples are
// sw_fault. Times are CLOCK_MONOTONIC (use_clockid) to match AccessSample.
#include <ctime>

#include "tier/heat/perf_ring_source.hpp"
#include "tier/heat/perf_thread_events.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {

namespace {

constexpr const char* kWhat = "perf_event_open(PERF_COUNT_SW_PAGE_FAULTS, PERF_SAMPLE_ADDR)";

perf_event_attr page_fault_attr(std::uint32_t sample_every) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_PAGE_FAULTS;
  attr.sample_period = sample_every == 0 ? 1 : sample_every;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
  attr.exclude_kernel = 1;  // user faults only; also what perf_event_paranoid 2 allows
  attr.exclude_hv = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  return attr;
}

}  // namespace

SourceAvailability perf_fault_availability(const SysRoot& root) {
  SourceAvailability out;
  if (!root.is_live()) {
    out.reason = "not the live system (root " + root.root().string() +
                 "): perf_event_open needs the running kernel";
    return out;
  }
  std::string error = perf::probe_perf_event_open(page_fault_attr(1), kWhat, root);
  out.available = error.empty();
  out.reason = out.available ? std::string(kWhat) : error;
  return out;
}

std::unique_ptr<HeatSource> make_perf_fault_source(const SourceOptions& options) {
  perf::PerfSourceSpec spec;
  spec.name = "perf-fault";
  spec.origin = perf::SampleOrigin::software_fault;
  spec.resolve = [every = options.sample_every](const SysRoot&) { return page_fault_attr(every); };
  return perf::make_perf_ring_source(std::move(spec), options);
}

}  // namespace tier::heat
