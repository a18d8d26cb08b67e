// libpfm4 event encoding behind a header free of perf_event.h: libpfm ships
// its own copy of the perf_event uapi structs, which cannot be in one
// translation unit with <linux/perf_event.h>. pfm_encoding.cpp is the only
// file that includes libpfm; this plain struct carries its answer out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tier::heat::perf {

struct PfmEncoding {
  std::uint32_t type = 0;
  std::uint64_t config = 0, config1 = 0, config2 = 0;
  std::uint64_t sample_period = 0;  // from a ":period=N" modifier, else 0
  unsigned precise_ip = 0;
  bool exclude_user = false, exclude_kernel = false, exclude_hv = false;
  std::string pmu_model;  // libpfm's PMU name ("skl", "amd64_fam19h_zen4")
  std::string canonical;  // fully qualified event string
};

/// pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT) at user level (PFM_PLM3).
/// libpfm reads LIBPFM_FORCE_PMU and LIBPFM_ENCODE_INACTIVE once, at the
/// process's first call. Serialised (libpfm is global state). Throws
/// SourceError with libpfm's message and the model asked for.
PfmEncoding pfm_encode(std::string_view event);

}  // namespace tier::heat::perf
