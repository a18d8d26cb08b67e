// Heat source selection: which sources exist on this kernel, why the others
// do not, and which one `--source auto` picks.
//
// The order is the issue's: precise PMU sampling, eBPF NUMA hint faults, DAMON,
// soft-dirty, idle-page tracking, perf software faults. `bpf-fault` counts as
// a hint-fault source only while NUMA balancing scans
// (/proc/sys/kernel/numa_balancing != 0); otherwise it sees first touches
// only, so `auto` passes over it (it can still be asked for by name).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tier/heat/source.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::heat {

struct SourceInfo {
  std::string name;
  SourceAvailability availability;
  std::string auto_note;  // why `auto` passes over an available source, else empty
};

/// Every source name, in `auto` order.
const std::vector<std::string_view>& source_names();

/// Availability of every source, in `auto` order.
std::vector<SourceInfo> probe_sources(const SysRoot& root);

/// A --source name that is not a source (the message lists them).
struct UnknownSourceError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// What `auto` picks from `probes` and why: the first available source auto
/// may use, and why each source before it in auto order was passed over (the
/// words `tierctl heat --list-sources` prints). Throws SourceError listing
/// every source's reason when none is usable.
struct AutoPick {
  std::string source;
  std::string why;
};
AutoPick explain_auto(const std::vector<SourceInfo>& probes);

/// Resolves a spec: "auto" (first source `auto` may use), "NAME" or
/// "NAME,NAME2" (a primary and a cross-check source). Throws
/// UnknownSourceError for unknown names (or more than two), SourceError when a
/// named source is unavailable (with its reason) or nothing is available.
std::vector<std::string> choose_sources(std::string_view spec,
                                        const std::vector<SourceInfo>& probes);

/// The source called `name` (one of source_names()).
std::unique_ptr<HeatSource> make_source(std::string_view name, const SourceOptions& options);

}  // namespace tier::heat
