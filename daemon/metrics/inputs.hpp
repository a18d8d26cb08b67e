// Plain data the daemon loop hands to tierd::Metrics each tick. Kept free of
// Prometheus types so the loop, tests and a future simulator can fill them
// without knowing how they are exported.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tier/heat/source.hpp"

namespace tierd {

enum class MigrationDirection { promote, demote };
const char* to_string(MigrationDirection direction);

/// A heat source's running totals since it started (HeatSource::counters()).
/// A total lower than the last one seen means the source was restarted.
struct HeatSourceTotals {
  std::string source;  // registry name: "bpf_faults", "damon", ...
  tier::heat::SourceCounters counters;
};

/// Where one workload's memory is now (Residency scan or memory.numa_stat).
struct WorkloadPlacement {
  std::string workload;        // config name of the workload
  std::string workload_class;  // "online" | "offline"
  std::map<unsigned, std::uint64_t> resident_bytes_by_node;
};

}  // namespace tierd
