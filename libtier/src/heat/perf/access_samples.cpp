// Decoded perf samples -> AccessSample (contract in perf_samples.hpp).
#include <linux/perf_event.h>

#include <limits>

#include "tier/heat/perf_samples.hpp"

namespace tier::heat::perf {

std::optional<AccessSample> to_access_sample(const PerfSample& sample, SampleOrigin origin) {
  if (!sample.has(PERF_SAMPLE_ADDR) || sample.addr == 0) return std::nullopt;
  AccessSample out;
  out.addr = sample.addr;
  if (sample.has(PERF_SAMPLE_TIME)) out.time_ns = sample.time;
  if (sample.has(PERF_SAMPLE_TID)) {
    out.pid = sample.pid;
    out.tid = sample.tid;
  }
  if (sample.has(PERF_SAMPLE_CPU)) {
    out.cpu = sample.cpu > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())
                  ? -1
                  : static_cast<std::int32_t>(sample.cpu);
  }
  if (origin == SampleOrigin::software_fault) {
    out.kind = SampleKind::sw_fault;
    return out;
  }
  // A precise PMU sample without a load/store op (IBS tags every op kind)
  // says nothing about data placement.
  switch (sample.data_src.op) {
    case MemOp::load:
      out.kind = SampleKind::pmu_load;
      break;
    case MemOp::store:
      out.kind = SampleKind::pmu_store;
      break;
    default:
      return std::nullopt;
  }
  if (sample.has(PERF_SAMPLE_WEIGHT) || sample.has(PERF_SAMPLE_WEIGHT_STRUCT)) {
    out.latency = sample.weight_var1;
  }
  return out;
}

}  // namespace tier::heat::perf
