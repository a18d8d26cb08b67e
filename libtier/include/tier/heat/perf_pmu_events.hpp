// Precise memory-sampling events: which PMU this machine has (Intel PEBS load
// latency, AMD IBS op) and the perf_event_attr that samples loads on it.
//
// Contract:
//  - detect_precise_pmu() only reads /sys/bus/event_source/devices through
//    the SysRoot, so gathered trees and fixtures answer the same way as the
//    live machine.
//  - encode_pmu_event() resolves a libpfm4 event string
//    ("MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=64:precise=2") through
//    pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT) for the PMU model
//    libpfm4 detects, or the one forced with LIBPFM_FORCE_PMU. The Intel
//    helpers take an optional model ("skl", "spr") to encode for a model
//    other than the detected one (libpfm's "model::EVENT" syntax; libpfm
//    allows it only for active models unless LIBPFM_ENCODE_INACTIVE=1 was
//    set before its first use). Throws SourceError with libpfm's message when
//    the event does not exist for that model.
//  - ibs_op_event() builds the attr for the `ibs_op` PMU; libpfm4 has no IBS
//    tables, the type comes from ibs_op/type in sysfs.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "tier/posix/sysroot.hpp"

namespace tier::heat::perf {

enum class PrecisePmuKind : std::uint8_t { none, intel_pebs, amd_ibs };

struct PrecisePmu {
  PrecisePmuKind kind = PrecisePmuKind::none;
  std::string core_pmu;  // "cpu", "cpu_core" (hybrid) when PEBS
  std::string evidence;  // what was found, or why nothing was ("no core PMU in ...; no ibs_op")
};

PrecisePmu detect_precise_pmu(const SysRoot& root);

struct PmuEventEncoding {
  perf_event_attr attr{};  // type, config, config1 (ldlat), precise_ip, sample_period
  std::string pmu_model;   // libpfm's PMU name ("skl", "icl", "amd64_fam19h_zen4")
  std::string canonical;   // libpfm's fully qualified event string
};

/// Resolves `event` (libpfm4 syntax) for user-space sampling.
PmuEventEncoding encode_pmu_event(std::string_view event);

/// PEBS load-latency sampling of loads slower than `latency_cycles`
/// (MEM_TRANS_RETIRED:LOAD_LATENCY, precise_ip 2, ldlat in config1).
/// `model` empty = the detected (or forced) model.
PmuEventEncoding intel_load_latency_event(std::uint32_t latency_cycles, std::uint64_t period,
                                          std::string_view model = {});
/// PEBS sampling of loads that missed L3 (MEM_LOAD_RETIRED:L3_MISS, precise_ip 2).
PmuEventEncoding intel_l3_miss_event(std::uint64_t period, std::string_view model = {});

/// IBS op sampling every `period` ops (rounded down to a multiple of 16, the
/// hardware's granularity). Throws SourceError when ibs_op/type is missing.
PmuEventEncoding ibs_op_event(const SysRoot& root, std::uint64_t period);

}  // namespace tier::heat::perf
