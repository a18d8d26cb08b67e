// tierd::Metrics: the daemon's Prometheus exporter (docs/metrics.md lists
// every series).
//
// Contract: the constructor builds every metric family and, unless `listen`
// is empty ("off"), starts serving them over HTTP at /metrics; it throws
// MetricsError naming the address when it cannot bind. The update functions
// are called from the daemon loop (one thread) with plain data; they never
// throw for odd input (a node missing from the topology is labelled
// "unknown"), and scrapes run concurrently on the HTTP server's threads.
// Gauges describe the latest update (stale series are removed); counters
// only grow, fed from running totals or per-move reports.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "metrics/cumulative_counter.hpp"
#include "metrics/gauge_series.hpp"
#include "metrics/http_server.hpp"
#include "metrics/inputs.hpp"
#include "metrics/listen_address.hpp"
#include "tier/memory/node_usage.hpp"
#include "tier/memory/page_mover.hpp"
#include "tier/topology/topology.hpp"

namespace tierd {

class Metrics {
 public:
  explicit Metrics(const std::optional<ListenAddress>& listen);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  /// Where scrapes go (the real port when 0 was asked); nullopt when off.
  std::optional<ListenAddress> address() const;

  /// tier_node_memory_bytes{node,tier,kind,state} from a NodeUsage snapshot.
  void update_nodes(const tier::Topology& topology, const tier::MemorySnapshot& snapshot);
  /// tier_kernel_pages_{promoted,demoted}_total from /proc/vmstat
  /// (MemorySnapshot::vmstat). The first call is the baseline: the kernel
  /// counts since boot, the exporter counts from its start.
  void update_kernel_counters(const std::map<std::string, std::uint64_t>& vmstat);
  /// One PageMover::move() of tier's own: pages/bytes moved, the units that
  /// failed, by reason, and those the process's own memory policy kept.
  void record_migration(MigrationDirection direction, const tier::MoveReport& report);
  /// Running totals of every heat source (counted in full: they start with us).
  void update_heat_sources(const std::vector<HeatSourceTotals>& sources);
  void observe_policy_tick(std::chrono::duration<double> elapsed);
  /// tier_topology_changes_total: node memory changed under tierd and the
  /// topology was read again (docs/topology.md, "Memory hotplug").
  void record_topology_change();
  /// Resident bytes per node and the share on tier 0, per workload; workloads
  /// absent from this call disappear from scrapes.
  void update_workloads(const tier::Topology& topology,
                        const std::vector<WorkloadPlacement>& workloads);

  /// tier_pool_cpus / tier_pool_members per pool (pools that went away
  /// disappear) and, with suppression on, tier_suppression_* (absent without).
  void update_pools(const std::vector<PoolFigures>& pools,
                    const std::optional<SuppressionFigures>& suppression);

  /// The text exposition a scrape returns (for tierctl and tests).
  std::string render() const;

 private:
  using CounterFamily = prometheus::Family<prometheus::Counter>;
  /// The fed counter of one series, created on first use.
  CumulativeCounter& cumulative(CounterFamily& family, const prometheus::Labels& labels,
                                CumulativeCounter::First first);

  std::shared_ptr<prometheus::Registry> registry_;
  GaugeSeries node_memory_;
  GaugeSeries workload_share_;
  GaugeSeries workload_resident_;
  GaugeSeries pool_cpus_;
  GaugeSeries pool_members_;
  GaugeSeries suppression_active_;
  GaugeSeries suppression_offline_cpus_;
  GaugeSeries suppression_online_cpu_use_;
  GaugeSeries suppression_budget_factor_;
  CounterFamily& suppression_actions_;
  CounterFamily& suppression_trigger_epochs_;
  CounterFamily& kernel_promoted_;
  CounterFamily& kernel_demoted_;
  CounterFamily& pages_migrated_;
  CounterFamily& bytes_migrated_;
  CounterFamily& migration_failures_;
  CounterFamily& kept_by_policy_;
  CounterFamily& heat_samples_;
  CounterFamily& heat_drops_;
  CounterFamily& topology_changes_;
  prometheus::Histogram& policy_tick_;
  // Keyed by family and labels so one map serves every fed counter.
  std::map<std::pair<const CounterFamily*, prometheus::Labels>, CumulativeCounter> cumulative_;
  std::unique_ptr<MetricsHttpServer> server_;  // last: stops serving before the registry goes
};

}  // namespace tierd
