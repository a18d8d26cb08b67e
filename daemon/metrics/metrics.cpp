#include "metrics/metrics.hpp"

#include <prometheus/gauge.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <sstream>

#include "tier/version.hpp"

namespace tierd {

namespace {

using prometheus::Labels;

prometheus::Family<prometheus::Gauge>& gauge_family(prometheus::Registry& registry,
                                                    const std::string& name,
                                                    const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

prometheus::Family<prometheus::Counter>& counter_family(prometheus::Registry& registry,
                                                        const std::string& name,
                                                        const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

// A tick is a few ms normally; the upper buckets show a tick that stalls on
// a slow residency scan or a blocked move.
const prometheus::Histogram::BucketBoundaries& tick_buckets() {
  static const prometheus::Histogram::BucketBoundaries buckets{
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  return buckets;
}

// The failure buckets of tier::MoveCounts, by the reason label they export.
// `skipped` and `already_there` are not failures: nothing was attempted, or
// nothing needed moving.
struct FailureBucket {
  const char* reason;
  std::uint64_t tier::MoveCounts::*count;
};
constexpr std::array<FailureBucket, 6> kFailureBuckets{{
    {"busy", &tier::MoveCounts::busy},
    {"no_memory", &tier::MoveCounts::no_memory},
    {"not_present", &tier::MoveCounts::not_present},
    {"process_gone", &tier::MoveCounts::process_gone},
    {"permission", &tier::MoveCounts::permission},
    {"other", &tier::MoveCounts::other},
}};

constexpr std::array<MigrationDirection, 2> kDirections{MigrationDirection::promote,
                                                        MigrationDirection::demote};

// /proc/vmstat demotion counters, by the mode label they export.
constexpr std::array<std::pair<const char*, const char*>, 4> kDemoteModes{{
    {"pgdemote_kswapd", "kswapd"},
    {"pgdemote_direct", "direct"},
    {"pgdemote_khugepaged", "khugepaged"},
    {"pgdemote_proactive", "proactive"},
}};

}  // namespace

const char* to_string(MigrationDirection direction) {
  return direction == MigrationDirection::promote ? "promote" : "demote";
}

Metrics::Metrics(const std::optional<ListenAddress>& listen)
    : registry_(std::make_shared<prometheus::Registry>()),
      node_memory_(gauge_family(*registry_, "tier_node_memory_bytes",
                                "Memory of a NUMA node in bytes, by state (total, free, used)")),
      workload_share_(gauge_family(*registry_, "tier_workload_fast_tier_share",
                                   "Fraction (0-1) of a workload's resident memory on tier 0")),
      workload_resident_(gauge_family(*registry_, "tier_workload_resident_bytes",
                                      "Resident memory of a workload on a node in bytes")),
      pool_cpus_(gauge_family(*registry_, "tier_pool_cpus", "CPUs in a CPU pool")),
      pool_members_(gauge_family(*registry_, "tier_pool_members", "Processes in a CPU pool")),
      suppression_active_(gauge_family(*registry_, "tier_suppression_active",
                                       "1 while offline suppression holds CPUs back")),
      suppression_offline_cpus_(gauge_family(
          *registry_, "tier_suppression_offline_cpus",
          "CPUs the offline workloads may use, by state (allowed now, pool without suppression)")),
      suppression_online_cpu_use_(
          gauge_family(*registry_, "tier_suppression_online_cpu_use",
                       "Busy fraction (0-1) of the online workloads' CPUs over the last epoch")),
      suppression_budget_factor_(
          gauge_family(*registry_, "tier_suppression_offline_budget_factor",
                       "Multiplier (0-1) of the offline workloads' migration budget")),
      suppression_actions_(counter_family(*registry_, "tier_suppression_actions_total",
                                          "Offline suppression changes (shrink, restore, ...)")),
      suppression_trigger_epochs_(
          counter_family(*registry_, "tier_suppression_trigger_epochs_total",
                         "Sampling epochs in which a suppression trigger held, by trigger")),
      kernel_promoted_(counter_family(*registry_, "tier_kernel_pages_promoted_total",
                                      "Pages the kernel promoted (vmstat pgpromote_success)")),
      kernel_demoted_(counter_family(*registry_, "tier_kernel_pages_demoted_total",
                                     "Pages the kernel demoted (vmstat pgdemote_*), by mode")),
      pages_migrated_(counter_family(*registry_, "tier_pages_migrated_total",
                                     "Pages (units; a huge page is one) tierd moved")),
      bytes_migrated_(counter_family(*registry_, "tier_bytes_migrated_total",
                                     "Bytes tierd moved between nodes")),
      migration_failures_(
          counter_family(*registry_, "tier_migration_failures_total",
                         "Pages (units) tierd tried and failed to move, by reason")),
      kept_by_policy_(counter_family(
          *registry_, "tier_pages_kept_by_process_policy_total",
          "Pages (units) tierd planned to move and left where they are: the process's own "
          "memory policy (mbind, set_mempolicy) or cpuset mems exclude the target")),
      heat_samples_(counter_family(*registry_, "tier_heat_samples_total",
                                   "Access samples a heat source delivered")),
      heat_drops_(counter_family(*registry_, "tier_heat_drops_total",
                                 "Access samples a heat source lost before delivery")),
      topology_changes_(
          counter_family(*registry_, "tier_topology_changes_total",
                         "Times node memory changed by a memory block or more under tierd")),
      policy_tick_(prometheus::BuildHistogram()
                       .Name("tier_policy_tick_seconds")
                       .Help("Duration of one policy tick of the daemon loop in seconds")
                       .Register(*registry_)
                       .Add({}, tick_buckets())) {
  gauge_family(*registry_, "tier_build_info", "Build of the running tierd (always 1)")
      .Add({{"version", tier::kVersion}})
      .Set(1);
  gauge_family(*registry_, "tier_up", "1 while tierd runs its loop").Add({}).Set(1);
  topology_changes_.Add({});  // 0 from the start: most machines never see one
  // Known label values exist from the start, so rate() and alerts see a 0
  // rather than an absent series before the first move.
  for (MigrationDirection direction : kDirections) {
    const std::string dir = to_string(direction);
    pages_migrated_.Add({{"direction", dir}});
    bytes_migrated_.Add({{"direction", dir}});
    kept_by_policy_.Add({{"direction", dir}});
    for (const FailureBucket& bucket : kFailureBuckets) {
      migration_failures_.Add({{"direction", dir}, {"reason", bucket.reason}});
    }
  }
  if (listen) server_ = std::make_unique<MetricsHttpServer>(*listen, registry_);
}

Metrics::~Metrics() = default;

std::optional<ListenAddress> Metrics::address() const {
  if (!server_) return std::nullopt;
  return server_->address();
}

CumulativeCounter& Metrics::cumulative(CounterFamily& family, const Labels& labels,
                                       CumulativeCounter::First first) {
  auto key = std::make_pair(&family, labels);
  auto it = cumulative_.find(key);
  if (it == cumulative_.end()) {
    it = cumulative_.emplace(std::move(key), CumulativeCounter(family.Add(labels), first)).first;
  }
  return it->second;
}

void Metrics::update_nodes(const tier::Topology& topology, const tier::MemorySnapshot& snapshot) {
  for (const tier::NodeMemory& memory : snapshot.nodes) {
    const tier::Node* node = topology.node(memory.node);
    const std::string id = std::to_string(memory.node);
    const std::string tier = node ? std::to_string(node->tier) : "unknown";
    const std::string kind = node ? tier::to_string(node->kind) : "unknown";
    const std::array<std::pair<const char*, std::uint64_t>, 3> states{
        {{"total", memory.total_bytes}, {"free", memory.free_bytes}, {"used", memory.used_bytes}}};
    for (const auto& [state, bytes] : states) {
      node_memory_.set({{"kind", kind}, {"node", id}, {"state", state}, {"tier", tier}},
                       static_cast<double>(bytes));
    }
  }
  node_memory_.prune();
}

void Metrics::update_kernel_counters(const std::map<std::string, std::uint64_t>& vmstat) {
  // Series appear only for counters this kernel has: an absent series says
  // "not reported", where a 0 would claim "nothing happened".
  if (auto it = vmstat.find("pgpromote_success"); it != vmstat.end()) {
    cumulative(kernel_promoted_, {}, CumulativeCounter::First::baseline).observe(it->second);
  }
  for (const auto& [key, mode] : kDemoteModes) {
    if (auto it = vmstat.find(key); it != vmstat.end()) {
      cumulative(kernel_demoted_, {{"mode", mode}}, CumulativeCounter::First::baseline)
          .observe(it->second);
    }
  }
}

void Metrics::record_migration(MigrationDirection direction, const tier::MoveReport& report) {
  const std::string dir = to_string(direction);
  pages_migrated_.Add({{"direction", dir}}).Increment(static_cast<double>(report.pages.moved));
  bytes_migrated_.Add({{"direction", dir}}).Increment(static_cast<double>(report.bytes.moved));
  kept_by_policy_.Add({{"direction", dir}})
      .Increment(static_cast<double>(report.pages.against_policy));
  for (const FailureBucket& bucket : kFailureBuckets) {
    migration_failures_.Add({{"direction", dir}, {"reason", bucket.reason}})
        .Increment(static_cast<double>(report.pages.*bucket.count));
  }
}

void Metrics::update_heat_sources(const std::vector<HeatSourceTotals>& sources) {
  for (const HeatSourceTotals& source : sources) {
    const Labels labels{{"source", source.source}};
    cumulative(heat_samples_, labels, CumulativeCounter::First::count)
        .observe(source.counters.samples);
    cumulative(heat_drops_, labels, CumulativeCounter::First::count).observe(source.counters.drops);
  }
}

void Metrics::record_topology_change() {
  topology_changes_.Add({}).Increment();
}

void Metrics::observe_policy_tick(std::chrono::duration<double> elapsed) {
  policy_tick_.Observe(elapsed.count());
}

void Metrics::update_workloads(const tier::Topology& topology,
                               const std::vector<WorkloadPlacement>& workloads) {
  for (const WorkloadPlacement& workload : workloads) {
    std::uint64_t total = 0;
    std::uint64_t fast = 0;
    for (const auto& [node_id, bytes] : workload.resident_bytes_by_node) {
      workload_resident_.set({{"workload", workload.workload}, {"node", std::to_string(node_id)}},
                             static_cast<double>(bytes));
      total += bytes;
      const tier::Node* node = topology.node(node_id);
      if (node != nullptr && node->tier == 0) fast += bytes;
    }
    // No resident memory: the share is undefined, so no series rather than a
    // made-up 0 or 1.
    if (total > 0) {
      workload_share_.set({{"workload", workload.workload}, {"class", workload.workload_class}},
                          static_cast<double>(fast) / static_cast<double>(total));
    }
  }
  workload_resident_.prune();
  workload_share_.prune();
}

void Metrics::update_pools(const std::vector<PoolFigures>& pools,
                           const std::optional<SuppressionFigures>& suppression) {
  for (const PoolFigures& pool : pools) {
    pool_cpus_.set({{"pool", pool.pool}}, pool.cpus);
    pool_members_.set({{"pool", pool.pool}}, pool.members);
  }
  pool_cpus_.prune();
  pool_members_.prune();
  if (suppression) {
    suppression_active_.set({}, suppression->active ? 1 : 0);
    suppression_offline_cpus_.set({{"state", "allowed"}}, suppression->offline_cpus);
    suppression_offline_cpus_.set({{"state", "pool"}}, suppression->offline_pool_cpus);
    if (suppression->online_cpu_use) {
      suppression_online_cpu_use_.set({}, *suppression->online_cpu_use);
    }
    suppression_budget_factor_.set({}, suppression->offline_budget_factor);
    cumulative(suppression_actions_, {}, CumulativeCounter::First::count)
        .observe(suppression->actions);
    for (const auto& [trigger, epochs] : suppression->trigger_epochs) {
      cumulative(suppression_trigger_epochs_, {{"trigger", trigger}},
                 CumulativeCounter::First::count)
          .observe(epochs);
    }
  }
  // Without suppression (or with it switched off by a reload) its gauges go.
  suppression_active_.prune();
  suppression_offline_cpus_.prune();
  suppression_online_cpu_use_.prune();
  suppression_budget_factor_.prune();
}

std::string Metrics::render() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace tierd
