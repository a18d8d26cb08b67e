// PMU detection from sysfs, and the load-sampling events: Intel ones encoded
// by libpfm4 (pfm_encoding.cpp), the IBS one built from ibs_op's sysfs files.
#include <string>

#include "tier/heat/perf_pfm.hpp"
#include "tier/heat/perf_pmu_events.hpp"
#include "tier/heat/source.hpp"

namespace tier::heat::perf {

namespace {

constexpr std::string_view kDevices = "/sys/bus/event_source/devices/";

std::string device_path(std::string_view pmu, std::string_view leaf = {}) {
  std::string path = std::string(kDevices) + std::string(pmu);
  if (!leaf.empty()) path += "/" + std::string(leaf);
  return path;
}

constexpr std::uint64_t kIbsCountOps = std::uint64_t{1} << 19;

// libpfm's "model::EVENT" selects the PMU table explicitly.
std::string model_prefix(std::string_view model) {
  return model.empty() ? std::string() : std::string(model) + "::";
}

}  // namespace

PrecisePmu detect_precise_pmu(const SysRoot& root) {
  PrecisePmu out;
  std::string core_note = "no core PMU in /sys/bus/event_source/devices";
  for (const char* pmu : {"cpu", "cpu_core"}) {  // cpu_core: the P-cores of hybrid Intel
    if (!root.exists(device_path(pmu))) continue;
    if (root.exists(device_path(pmu, "format/ldlat"))) {
      out.kind = PrecisePmuKind::intel_pebs;
      out.core_pmu = pmu;
      out.evidence = "PEBS load latency (" + std::string(pmu) + "/format/ldlat)";
      return out;
    }
    core_note = "core PMU " + std::string(pmu) + " without PEBS load latency (no format/ldlat)";
  }
  if (root.exists(device_path("ibs_op", "type"))) {
    out.kind = PrecisePmuKind::amd_ibs;
    out.evidence = "IBS op (ibs_op/type)";
    return out;
  }
  out.evidence = core_note + "; no ibs_op";
  return out;
}

PmuEventEncoding encode_pmu_event(std::string_view event) {
  PfmEncoding pfm = pfm_encode(event);
  PmuEventEncoding out;
  out.attr.size = sizeof out.attr;
  out.attr.type = pfm.type;
  out.attr.config = pfm.config;
  out.attr.config1 = pfm.config1;
  out.attr.config2 = pfm.config2;
  out.attr.sample_period = pfm.sample_period;
  out.attr.precise_ip = pfm.precise_ip & 3;
  out.attr.exclude_user = pfm.exclude_user;
  out.attr.exclude_kernel = pfm.exclude_kernel;
  out.attr.exclude_hv = pfm.exclude_hv;
  out.pmu_model = std::move(pfm.pmu_model);
  out.canonical = std::move(pfm.canonical);
  return out;
}

PmuEventEncoding intel_load_latency_event(std::uint32_t latency_cycles, std::uint64_t period,
                                          std::string_view model) {
  return encode_pmu_event(model_prefix(model) +
                          "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=" + std::to_string(latency_cycles) +
                          ":precise=2:period=" + std::to_string(period));
}

PmuEventEncoding intel_l3_miss_event(std::uint64_t period, std::string_view model) {
  return encode_pmu_event(model_prefix(model) +
                          "MEM_LOAD_RETIRED:L3_MISS:precise=2:period=" + std::to_string(period));
}

PmuEventEncoding ibs_op_event(const SysRoot& root, std::uint64_t period) {
  auto type = root.read_int(device_path("ibs_op", "type"));
  if (!type || *type < 0) {
    throw SourceError("no IBS: " + root.path(device_path("ibs_op", "type")).string() +
                      " is missing or not a number");
  }
  PmuEventEncoding out;
  out.attr.size = sizeof out.attr;
  out.attr.type = static_cast<std::uint32_t>(*type);
  // cnt_ctl=1 (config bit 19, format/cnt_ctl) counts dispatched ops, so the
  // period is "1 in N ops"; without it IBS counts cycles.
  if (root.exists(device_path("ibs_op", "format/cnt_ctl"))) out.attr.config = kIbsCountOps;
  // IBS counts in units of 16 ops and rejects periods below 16 (ibs.c min_period).
  std::uint64_t rounded = period & ~std::uint64_t{0xf};
  out.attr.sample_period = rounded < 16 ? 16 : rounded;
  out.attr.precise_ip = 0;  // IBS samples are precise by construction; perf uses 0 for ibs_op
  out.pmu_model = "ibs_op";
  out.canonical = "ibs_op/period=" + std::to_string(out.attr.sample_period) + "/";
  return out;
}

}  // namespace tier::heat::perf
