// "pmu": precise load/store sampling with the data address, physical
// address, data source and latency - PEBS load latency on Intel, IBS op on
// AMD. Which one comes from sysfs (detect_precise_pmu); the event from
// libpfm4 (Intel) or ibs_op/type (AMD).
#include <ctime>

#include "tier/heat/perf_pmu_events.hpp"
#include "tier/heat/perf_ring_source.hpp"
#include "tier/heat/perf_thread_events.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {

namespace {

// Loads slower than this many cycles are sampled on Intel: above an L1/L2
// hit, so the samples say where memory-bound loads were served from.
constexpr std::uint32_t kLoadLatencyCycles = 30;
// Default sampling interval when SourceOptions asks for every event: precise
// PMU events fire far too often to take each one.
constexpr std::uint64_t kDefaultPeriod = 4000;

// WEIGHT rather than WEIGHT_STRUCT: every PEBS load-latency and IBS kernel
// fills it (low 32 bits = load latency / IbsDcMissLat); the struct form adds
// instruction latency and tag-to-retire, which AccessSample has no use for.
constexpr std::uint64_t kSampleType = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                                      PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
                                      PERF_SAMPLE_PHYS_ADDR;

perf_event_attr precise_attr(const SysRoot& root, std::uint32_t sample_every) {
  std::uint64_t period = sample_every > 1 ? sample_every : kDefaultPeriod;
  perf::PrecisePmu pmu = perf::detect_precise_pmu(root);
  perf::PmuEventEncoding event;
  switch (pmu.kind) {
    case perf::PrecisePmuKind::none:
      throw SourceError("no precise PMU sampling: " + pmu.evidence);
    case perf::PrecisePmuKind::intel_pebs:
      event = perf::intel_load_latency_event(kLoadLatencyCycles, period);
      break;
    case perf::PrecisePmuKind::amd_ibs:
      event = perf::ibs_op_event(root, period);
      break;
  }
  perf_event_attr attr = event.attr;
  attr.sample_period = event.attr.sample_period != 0 ? event.attr.sample_period : period;
  attr.freq = 0;
  attr.sample_type = kSampleType;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  return attr;
}

}  // namespace

SourceAvailability pmu_availability(const SysRoot& root) {
  SourceAvailability out;
  perf::PrecisePmu pmu = perf::detect_precise_pmu(root);
  if (pmu.kind == perf::PrecisePmuKind::none) {
    out.reason = pmu.evidence;
    return out;
  }
  perf_event_attr attr;
  try {
    attr = precise_attr(root, 0);
  } catch (const SourceError& e) {
    out.reason = pmu.evidence + ", but " + e.what();
    return out;
  }
  if (root.is_live()) {
    if (std::string error =
            perf::probe_perf_event_open(attr, "perf_event_open(precise load)", root);
        !error.empty()) {
      out.reason = pmu.evidence + ", but " + error;
      return out;
    }
  }
  out.available = true;
  out.reason = pmu.evidence;
  return out;
}

std::unique_ptr<HeatSource> make_pmu_source(const SourceOptions& options) {
  perf::PerfSourceSpec spec;
  spec.name = "pmu";
  spec.origin = perf::SampleOrigin::precise_pmu;
  spec.resolve = [every = options.sample_every](const SysRoot& root) {
    return precise_attr(root, every);
  };
  return perf::make_perf_ring_source(std::move(spec), options);
}

}  // namespace tier::heat
