// The one translation unit that includes libpfm4 (see perf_pfm.hpp). libpfm
// is global state: pfm_initialize detects (or, with LIBPFM_FORCE_PMU, forces)
// the active PMU models once per process and reads its environment then;
// pfm_terminate does not undo the activation. So it is initialised once, and
// calls are serialised.
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
