// Plain data the daemon loop hands to tierd::Metrics each tick. Kept free of
// Prometheus types so the loop, tests and a future simulator can fill them
// without knowing how they are exported.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

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

/// One CPU pool as tierd last realised it.
struct PoolFigures {
  std::string pool;      // "shared", "numa:1", "exclusive:2 (pid:42)", ...
  unsigned cpus = 0;     // CPUs in the pool
  unsigned members = 0;  // processes in it
};

/// Offline suppression's state this epoch (OfflineSuppression).
struct SuppressionFigures {
  bool active = false;
  unsigned offline_cpus = 0;       // CPUs the offline workloads may use now
  unsigned offline_pool_cpus = 0;  // ... and without suppression
  std::optional<double> online_cpu_use;
  double offline_budget_factor = 1;
  std::uint64_t actions = 0;                            // running total
  std::map<std::string, std::uint64_t> trigger_epochs;  // kind -> epochs it held, running
};

}  // namespace tierd
