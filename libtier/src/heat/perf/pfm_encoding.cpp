// The one translation unit that includes libpfm4 (see perf_pfm.hpp). libpfm
// keeps global state - its PMU tables, chosen at pfm_initialize - so every
// encoding re-initialises it under one lock: that is what lets a test force
// another model with LIBPFM_FORCE_PMU between two calls.
#include <perfmon/pfmlib_perf_event.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "tier/heat/perf_pfm.hpp"
#include "tier/heat/source.hpp"

namespace tier::heat::perf {

namespace {

std::mutex& pfm_lock() {
  static std::mutex lock;
  return lock;
}

}  // namespace

PfmEncoding pfm_encode(std::string_view event) {
  std::lock_guard guard(pfm_lock());
  pfm_terminate();  // forget the previous detection: LIBPFM_FORCE_PMU is read at initialise
  if (int rc = pfm_initialize(); rc != PFM_SUCCESS) {
    throw SourceError("libpfm4 initialisation failed: " + std::string(pfm_strerror(rc)));
  }
  perf_event_attr attr{};
  pfm_perf_encode_arg_t arg{};
  arg.size = sizeof arg;
  arg.attr = &attr;
  char* fstr = nullptr;
  arg.fstr = &fstr;
  std::string name(event);
  // PFM_PLM3: user level only, which perf_event_paranoid 2 still allows.
  int rc = pfm_get_os_event_encoding(name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (rc != PFM_SUCCESS) {
    const char* forced = std::getenv("LIBPFM_FORCE_PMU");
    throw SourceError("cannot encode PMU event " + name + " for " +
                      (forced != nullptr ? "forced PMU model " + std::string(forced)
                                         : std::string("the detected PMU model")) +
                      ": " + pfm_strerror(rc));
  }
  PfmEncoding out;
  out.type = attr.type;
  out.config = attr.config;
  out.config1 = attr.config1;
  out.config2 = attr.config2;
  out.sample_period = attr.freq ? 0 : attr.sample_period;
  out.precise_ip = attr.precise_ip;
  out.exclude_user = attr.exclude_user;
  out.exclude_kernel = attr.exclude_kernel;
  out.exclude_hv = attr.exclude_hv;
  out.canonical = fstr != nullptr ? fstr : name;
  std::free(fstr);
  // The canonical string starts with the model: "skl::MEM_TRANS_RETIRED:...".
  out.pmu_model = out.canonical.substr(0, out.canonical.find("::"));
  return out;
}

}  // namespace tier::heat::perf
