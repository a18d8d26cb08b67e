// Turning decoded perf samples into AccessSample, the one conversion both the
// live sources and the recorded-stream tests use.
//
// Contract: to_access_sample() returns nullopt for samples that are no
// evidence of a data access (no address, or a PMU op that is neither a load
// nor a store, such as an IBS op without memory access). Kinds: SW faults
// give sw_fault; PMU samples give pmu_load / pmu_store from the data_src op.
// Latency: WEIGHT_STRUCT var1_dw, or the low 32 bits of WEIGHT (PEBS load
// latency in core cycles; IBS data-cache miss latency).
#pragma once

#include <optional>

#include "tier/heat/perf_records.hpp"
#include "tier/heat/sample.hpp"

namespace tier::heat::perf {

enum class SampleOrigin : std::uint8_t { software_fault, precise_pmu };

std::optional<AccessSample> to_access_sample(const PerfSample& sample, SampleOrigin origin);

}  // namespace tier::heat::perf
