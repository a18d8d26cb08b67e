// The loop's side of placement: starting the worker, taking the heat views
// and move outcomes it posts back, and reporting them (status, metrics).
#include <boost/json.hpp>
#include <iomanip>

#include "daemon.hpp"
#include "log.hpp"
#include "placement/kernel_coordination.hpp"
#include "tier/heat/collector.hpp"
#include "tier/heat/selection.hpp"
#include "tier/heat/sources.hpp"
#include "workloads/listing.hpp"

namespace tierd {

namespace {

// The kernel's own tiering moves in `vmstat` (promotions by NUMA balancing,
// demotions by reclaim); tierd's move_pages calls count in neither.
std::uint64_t kernel_promoted(const std::map<std::string, std::uint64_t>& vmstat) {
  return tier::tiering_counts(vmstat).promoted_pages;
}
std::uint64_t kernel_demoted(const std::map<std::string, std::uint64_t>& vmstat) {
  return tier::tiering_counts(vmstat).demoted_pages;
}

}  // namespace

Config Daemon::with_heat_choice(const Config& config) {
  if (!memory_) memory_ = tier::read_memory_snapshot(tier::SysRoot(config.topology_root));
  const bool own_auto = config.kernel_tiering == KernelTiering::own && config.heat_source == "auto";
  const double probe_began = steady_seconds();
  const bool bpf_loads = own_auto && tier::heat::bpf_fault_availability(options_.root).available;
  const double probe_s = steady_seconds() - probe_began;
  heat_choice_ = choose_heat_source(config, bpf_loads, node_states());
  if (own_auto) {
    log::info() << "placement: heat source " << heat_choice_.source << ": " << heat_choice_.why
                << " (the eBPF probe took " << std::fixed << std::setprecision(1) << probe_s
                << " s)";
  }
  auto_pick_ = {};
  if (heat_choice_.source == "auto") {
    try {
      auto_pick_ = tier::heat::explain_auto(tier::heat::probe_sources(options_.root));
      log::info() << "placement: heat source auto picks " << auto_pick_.source << ": "
                  << auto_pick_.why;
    } catch (const tier::heat::SourceError& e) {
      auto_pick_.why = e.what();
      log::warn() << "placement: heat source auto: " << auto_pick_.why;
    }
  }
  Config effective = config;
  effective.heat_source = heat_choice_.source;
  return effective;
}

void Daemon::start_placement() {
  placement_.reset();  // a reload: the old worker's sources stop first
  PlacementWorkerSettings settings;
  settings.heat_source = heat_choice_.source;
  settings.epoch = std::chrono::milliseconds(config_.epoch_ms);
  settings.source_options.interval = settings.epoch;
  settings.source_options.cpu_node = tier::heat::cpu_nodes(*topology_);
  settings.source_options.root = &options_.root;
  settings.auto_candidates = [root = &options_.root] {
    std::vector<std::string> names;
    for (const tier::heat::SourceInfo& info : tier::heat::probe_sources(*root)) {
      if (info.availability.available && info.auto_note.empty()) names.push_back(info.name);
    }
    return names;
  };
  placement_ = std::make_unique<PlacementWorker>(
      io_, std::move(settings), [this](HeatEpoch epoch) { take_heat(std::move(epoch)); },
      [this](std::vector<MoveOutcome> outcomes) { take_moves(std::move(outcomes)); });
  if (memory_) vmstat_at_start_ = memory_->vmstat;
}

void Daemon::take_heat(HeatEpoch epoch) {
  // One source for every workload: its failure is said once, not per workload.
  if (!epoch.error.empty() && epoch.error != heat_epoch_.error) {
    log::warn() << "no heat for " << epoch.views.size() << " workload(s): " << epoch.error;
  }
  std::map<std::string, WorkloadHeatView> next;
  for (WorkloadHeatView& view : epoch.views) {
    if (registry_.find(view.id) == nullptr) continue;  // dropped meanwhile
    if (view.epoch_samples > 0) first_evidence_.sampled(view.id, steady_seconds());
    next.emplace(view.id, std::move(view));
  }
  heat_views_ = std::move(next);
  epoch.views.clear();
  if (!epoch.source.empty()) metrics_->update_heat_sources({{epoch.source, epoch.counters}});
  heat_epoch_ = std::move(epoch);
}

void Daemon::take_moves(std::vector<MoveOutcome> outcomes) {
  for (const MoveOutcome& outcome : outcomes) {
    metrics_->record_migration(outcome.direction, outcome.report);
    if (outcome.report.bytes.moved > 0) apply_move_to_residency(outcome);
    if (outcome.direction == MigrationDirection::promote && outcome.report.bytes.moved > 0) {
      first_evidence_.promoted(outcome.workload_id, steady_seconds());
    }
    log::debug() << "workload " << outcome.workload_id << ": " << moves_.record(outcome) << " in "
                 << outcome.report.seconds << " s";
  }
}

// tierd's own move, applied to the workload's figures at once (its next
// scan may be a while: residency_plan.hpp); a move whose source node is not
// known makes the workload's figures stale, read again first.
void Daemon::apply_move_to_residency(const MoveOutcome& outcome) {
  auto figures = residency_.find(outcome.workload_id);
  if (figures == residency_.end()) return;  // not read yet: its first scan comes first anyway
  if (outcome.from_node < 0) {
    residency_stale_.insert(outcome.workload_id);
    return;
  }
  shift_residency(figures->second, static_cast<unsigned>(outcome.from_node), outcome.target_node,
                  outcome.report.bytes.moved);
}

void Daemon::note_withheld(const std::vector<WithheldMove>& withheld) {
  moves_withheld_ += withheld.size();
  if (!withheld.empty()) last_withheld_reason_ = withheld.front().why;
}

std::vector<std::vector<double>> Daemon::latency_matrix() const {
  unsigned max_node = 0;
  for (const tier::Node& node : topology_->nodes()) max_node = std::max(max_node, node.id);
  std::vector<std::vector<double>> matrix(max_node + 1, std::vector<double>(max_node + 1, 0));
  for (const tier::Node& from : topology_->nodes()) {
    if (from.cpus.empty()) continue;
    for (const tier::Node& to : topology_->nodes()) {
      double ns = 0;
      const tier::NodePerf* perf = topology_->perf_for(from.id, to.id);
      if (perf && perf->read_latency_ns) {
        ns = static_cast<double>(*perf->read_latency_ns);
      } else if (auto distance = topology_->distance(from.id, to.id)) {
        ns = 10.0 * *distance;  // SLIT 10 = local: ~100 ns, the usual DRAM figure
      }
      matrix[from.id][to.id] = ns;
    }
  }
  return matrix;
}

std::optional<double> Daemon::TierResidency::fast_share() const {
  if (total == 0) return std::nullopt;
  auto fast = by_tier.find(0);
  return static_cast<double>(fast == by_tier.end() ? 0 : fast->second) / static_cast<double>(total);
}

boost::json::object Daemon::TierResidency::to_json() const {
  boost::json::object tiers;
  for (const auto& [rank, bytes] : by_tier) tiers[std::to_string(rank)] = bytes;
  return tiers;
}

Daemon::TierResidency Daemon::residency_by_tier(const std::string& workload_id) const {
  TierResidency out;
  auto found = residency_.find(workload_id);
  if (found == residency_.end()) return out;
  for (const auto& [node, bytes] : found->second) {
    out.total += bytes;
    if (const tier::Node* known = topology_->node(node)) out.by_tier[known->tier] += bytes;
  }
  return out;
}

// The one heat source behind every workload's regions: which, over how many
// processes, and how it followed their changes (restarts vs. in place).
boost::json::object Daemon::heat_json() const {
  const HeatEpoch& e = heat_epoch_;
  boost::json::object heat{{"source", e.source},
                           {"processes", e.processes},
                           {"census_last_epoch", e.census},
                           {"samples", e.counters.samples},
                           {"drops", e.counters.drops},
                           {"starts", e.follow.starts},
                           {"retargets", e.follow.retargets},
                           {"last_start_s", e.follow.last_start_s},
                           {"last_epoch_ms",
                            {{"watch", e.timings.watch_ms},
                             {"poll", e.timings.poll_ms},
                             {"regions", e.timings.regions_ms},
                             {"cpu_nodes", e.timings.cpu_nodes_ms},
                             {"cpu", e.timings.cpu_ms}}}};
  if (!e.error.empty()) heat["error"] = e.error;
  return heat;
}

boost::json::value Daemon::placement_json(bool all_workloads) const {
  namespace json = boost::json;
  auto tier_of = [this](unsigned node) {
    const tier::Node* known = topology_->node(node);
    return known ? known->tier : 0u;
  };
  json::array workloads;
  // Past kStatusWorkloads, the explicit ones and the largest discovered ones:
  // building 2 000 took ~20 ms on the loop per request (1 MB of JSON).
  const std::vector<const Workload*> listed = listed_workloads(
      registry_.workloads(), all_workloads ? registry_.workloads().size() : kStatusWorkloads,
      [this](const Workload& workload) { return residency_by_tier(workload.id).total; });
  for (const Workload* entry : listed) {
    const Workload& workload = *entry;
    json::object item{{"id", workload.id},
                      {"name", workload.name},
                      {"class", to_string(workload.workload_class)}};
    // Residency by tier, and the fast tier's share of it (tier 0).
    const TierResidency residency = residency_by_tier(workload.id);
    item["resident_bytes_by_tier"] = residency.to_json();
    const std::optional<double> share = residency.fast_share();
    item["fast_share"] = share ? json::value(*share) : json::value(nullptr);
    if (auto view = heat_views_.find(workload.id); view != heat_views_.end()) {
      // Heat-weighted share: the part of the sampled accesses that lands on
      // the fast tier, what the policies try to raise.
      double hot = 0, total = 0;
      for (const tier::policy::Region& r : view->second.regions) {
        total += r.heat;
        if (r.node >= 0 && tier_of(static_cast<unsigned>(r.node)) == 0) hot += r.heat;
      }
      item["heat_source"] = view->second.source;
      if (!view->second.heat_error.empty()) item["heat_error"] = view->second.heat_error;
      item["regions"] = view->second.regions.size();
      item["self_placed_bytes"] = view->second.self_placed_bytes;
      item["epoch_samples"] = view->second.epoch_samples;
      item["heat_fast_share"] = total > 0 ? json::value(hot / total) : json::value(nullptr);
      json::array cpu_nodes;
      for (int node : view->second.cpu_nodes) cpu_nodes.push_back(node);
      item["cpu_nodes"] = std::move(cpu_nodes);
    }
    for (auto& [key, value] : moves_.workload_json(workload.id)) item[key] = std::move(value);
    for (auto& [key, value] : first_evidence_.workload_json(workload.id)) {
      item[key] = std::move(value);
    }
    workloads.push_back(std::move(item));
  }
  json::object kernel_moves;
  if (memory_) {
    kernel_moves["promoted_pages"] =
        kernel_promoted(memory_->vmstat) -
        std::min(kernel_promoted(memory_->vmstat), kernel_promoted(vmstat_at_start_));
    kernel_moves["demoted_pages"] =
        kernel_demoted(memory_->vmstat) -
        std::min(kernel_demoted(memory_->vmstat), kernel_demoted(vmstat_at_start_));
  }
  return json::object{
      {"kernel_tiering", to_string(config_.kernel_tiering)},
      {"kernel_tiering_why",
       kernel_tiering_why(config_.kernel_tiering,
                          read_kernel_tiering_now(tier::SysRoot(config_.topology_root)))},
      {"heat_source", heat_choice_.source},
      {"heat_source_why", heat_choice_.why},
      {"heat_source_picked", auto_pick_.source},
      {"heat_source_picked_why", auto_pick_.why},
      {"heat", heat_json()},
      {"moves_executed", moves_.batches()},
      {"moves_stopped", moves_.stops_json()},
      {"not_moved_pages", moves_.not_moved_json()},
      {"moves_withheld", moves_withheld_},
      {"last_withheld_reason", last_withheld_reason_},
      {"kernel_moves_since_start", std::move(kernel_moves)},
      {"workloads_omitted", registry_.workloads().size() - listed.size()},
      {"workloads", std::move(workloads)}};
}

}  // namespace tierd
