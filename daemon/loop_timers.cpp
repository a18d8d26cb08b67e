// The two timers of the loop: the sampling epoch (node memory, kernel
// counters, workload liveness and residency, metrics) and the policy tick
// (snapshot → plan). Both run at a fixed rate from their start: a slow epoch
// delays the next one rather than piling up.
#include <boost/json.hpp>
#include <ctime>
#include <iostream>

#include "daemon.hpp"
#include "log.hpp"
#include "placement/kernel_coordination.hpp"
#include "unix_clock.hpp"

namespace tierd {

namespace {

using Clock = std::chrono::steady_clock;

// A cgroup workload's residency is the sum of its processes, up to this many.
constexpr std::size_t kMaxPidsPerWorkload = 64;
// Read workloads handed to the scanner per epoch: more than its duty cycle
// lets it read in one (10 ms of credit a second; a small process's scan
// takes about 0.1 ms), fewer than a fleet server's thousands.
constexpr std::size_t kRereadsPerBatch = 256;

// Next deadline at a fixed rate; if the loop fell behind, from now.
Clock::time_point next_deadline(Clock::time_point previous, std::chrono::milliseconds period) {
  Clock::time_point next = previous + period;
  const Clock::time_point now = Clock::now();
  return next < now ? now + period : next;
}

}  // namespace

void Daemon::schedule_epoch() {
  epoch_timer_.expires_at(next_epoch_);
  epoch_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    sample_epoch();
    next_epoch_ = next_deadline(next_epoch_, std::chrono::milliseconds(config_.epoch_ms));
    schedule_epoch();
  });
}

void Daemon::schedule_tick() {
  tick_timer_.expires_at(next_tick_);
  tick_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    policy_tick();
    next_tick_ = next_deadline(next_tick_, std::chrono::milliseconds(config_.tick_ms));
    schedule_tick();
  });
}

void Daemon::sample_epoch() {
  ++epochs_;
  memory_ = tier::read_memory_snapshot(tier::SysRoot(config_.topology_root));
  follow_node_memory();
  metrics_->update_nodes(*topology_, *memory_);
  metrics_->update_kernel_counters(memory_->vmstat);
  refresh_workloads(unix_now());
  for (const Workload& workload : registry_.workloads()) {
    first_evidence_.listed(workload.id, steady_seconds());
  }
  suppress_offline();
  update_pool_metrics();
  metrics_->update_workloads(*topology_, placements());
  scan_residency();
  if (placement_) {
    // Online first, then default, then offline; higher priority first: the
    // order of the worker's views (every workload is placed; one heat source
    // watches all their processes).
    std::vector<const Workload*> order;
    for (const Workload& workload : registry_.workloads()) order.push_back(&workload);
    auto rank = [](WorkloadClass c) {
      return c == WorkloadClass::online ? 0 : c == WorkloadClass::normal ? 1 : 2;
    };
    std::stable_sort(order.begin(), order.end(), [&](const Workload* a, const Workload* b) {
      if (rank(a->workload_class) != rank(b->workload_class)) {
        return rank(a->workload_class) < rank(b->workload_class);
      }
      return a->priority > b->priority;
    });
    std::vector<WatchedWorkload> watched;
    for (const Workload* entry : order) {
      const Workload& workload = *entry;
      std::vector<pid_t> pids = registry_.pids_of(workload);
      if (pids.size() > kMaxPidsPerWorkload) pids.resize(kMaxPidsPerWorkload);
      watched.push_back({workload.id, std::move(pids)});
    }
    placement_->set_workloads(std::move(watched));
  }
}

void Daemon::refresh_workloads(std::int64_t now_unix_s) {
  Registry::RefreshResult changed = registry_.refresh(now_unix_s);
  // Discovery's workloads come and go by the hundred on a busy machine: each
  // at debug level, a count at info level when it changes.
  auto log_for = [](const Workload& w) {
    return log::Line(w.source == WorkloadSource::discovered ? log::Level::debug : log::Level::info);
  };
  for (const Workload& added : changed.added) {
    log_for(added) << "workload " << added.id << " (" << added.name << ") added from "
                   << to_string(added.source) << ", class " << to_string(added.workload_class)
                   << (added.found.empty() ? "" : ": " + added.found);
  }
  const Registry::DiscoveryCounts& found = registry_.discovery_counts();
  if (found.found != discovered_logged_) {
    log::info() << "discovery: " << found.found << " workload(s) at "
                << (config_.discover_min_bytes >> 20) << " MiB or more, of " << found.processes
                << " process(es)"
                << (found.by_cgroup ? " and " + std::to_string(found.cgroups) + " leaf cgroup(s)"
                                    : std::string())
                << " read";
    discovered_logged_ = found.found;
  }
  for (const DroppedWorkload& dropped : changed.dropped) {
    log_for(dropped.workload) << "workload " << dropped.workload.id << " (" << dropped.workload.name
                              << ") dropped: " << dropped.reason;
    record_dropped(dropped, now_unix_s);
    moves_.forget(dropped.workload.id);
    first_evidence_.forget(dropped.workload.id);
    heat_views_.erase(dropped.workload.id);
    residency_.erase(dropped.workload.id);
    residency_scanned_at_.erase(dropped.workload.id);
    residency_stale_.erase(dropped.workload.id);
  }
  if (!changed.added.empty() || !changed.dropped.empty()) {
    realise_pools();  // a claim that left gives its CPUs back
    save_state();
  }
}

// Hands the workloads to the scanner in residency_order(): new ones first,
// and, while offline suppression is on, the online ones (its triggers read
// their fast share, which the kernel's own moves change unseen); then those
// whose figures tierd's moves could not update, then the longest unread. It
// reads them on its thread while its duty cycle (1 % of a core) has credit,
// so a large workload is read every second or so on a server and rarely where
// a scan is slow; the results come back in take_residency().
void Daemon::scan_residency() {
  const std::vector<Workload>& workloads = registry_.workloads();
  if (workloads.empty()) return;
  std::vector<std::string> ids;
  std::set<std::string> every_epoch;
  ids.reserve(workloads.size());
  for (const Workload& workload : workloads) {
    ids.push_back(workload.id);
    if (suppression_ && workload.workload_class == WorkloadClass::online) {
      every_epoch.insert(workload.id);
    }
  }
  std::vector<ResidencyJob> jobs;
  std::size_t rereads = 0;
  for (ResidencyTurn& turn :
       residency_order(ids, residency_, residency_scanned_at_, residency_stale_, every_epoch)) {
    if (!turn.always && ++rereads > kRereadsPerBatch) break;
    const Workload* workload = registry_.find(turn.workload_id);
    if (workload == nullptr) continue;
    std::vector<pid_t> pids = registry_.pids_of(*workload);
    if (pids.size() > kMaxPidsPerWorkload) pids.resize(kMaxPidsPerWorkload);
    jobs.push_back({std::move(turn.workload_id), std::move(pids), turn.always});
  }
  residency_scanner_->start(std::move(jobs));
}

void Daemon::take_residency(std::vector<ResidencyResult> results) {
  const double now = steady_seconds();
  for (ResidencyResult& result : results) {
    ++residency_scans_;
    residency_scan_seconds_ += result.seconds;
    // A workload dropped while it was being scanned stays dropped.
    if (registry_.find(result.workload_id) == nullptr) continue;
    residency_stale_.erase(result.workload_id);
    residency_scanned_at_[result.workload_id] = now;
    residency_[result.workload_id] = std::move(result.bytes_by_node);
  }
  metrics_->update_workloads(*topology_, placements());
}

std::vector<WorkloadPlacement> Daemon::placements() const {
  std::vector<WorkloadPlacement> out;
  for (const Workload& workload : registry_.workloads()) {
    auto found = residency_.find(workload.id);
    if (found == residency_.end()) continue;
    out.push_back({workload.id, to_string(workload.workload_class), found->second});
  }
  return out;
}

// Nodes without memory (offlined, unplugged) are no target: see node_watch.hpp.
std::vector<tier::policy::NodeState> Daemon::node_states() const {
  if (!memory_) return {};
  return placeable_nodes(*memory_, *topology_);
}

tier::policy::Snapshot Daemon::policy_snapshot() const {
  tier::policy::Snapshot snapshot;
  snapshot.topology = topology_.get();
  snapshot.now_s = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  snapshot.tick_s = config_.tick_ms / 1000.0;
  snapshot.latency_ns = latency_matrix();
  snapshot.nodes = node_states();
  snapshot.demote_offline_first = suppression_ && suppression_->decision().demote_offline_first;
  for (const Workload& workload : registry_.workloads()) {
    tier::policy::WorkloadState state;
    state.id = workload.id;
    state.workload_class = workload.workload_class;
    state.priority = workload.priority;
    state.pids = registry_.pids_of(workload);
    state.budget_mbps = offline_budget_mbps(workload).value_or(workload.budget_mbps);
    // In a pool, the kernel refuses moves outside its cpuset's memory nodes.
    if (const tier::cpu::Assignment* assigned =
            pools_ ? pools_->assignment(workload.id) : nullptr) {
      state.allowed_nodes = assigned->mems;
    }
    if (auto found = residency_.find(workload.id); found != residency_.end()) {
      state.resident_bytes_by_node = found->second;
    }
    if (auto view = heat_views_.find(workload.id); view != heat_views_.end()) {
      state.regions = view->second.regions;
      state.cpu_nodes = view->second.cpu_nodes;
      // Its processes' own cpusets, where the worker read them: outside a
      // pool they are the only limit; in one, the pool's mems stay.
      if (state.allowed_nodes.empty()) state.allowed_nodes = view->second.mems_allowed;
    }
    if (workload.quota.bytes) {
      state.quota_bytes = workload.quota.bytes;
    } else if (workload.quota.percent) {
      std::uint64_t resident = 0;
      for (const auto& [node, bytes] : state.resident_bytes_by_node) resident += bytes;
      state.quota_bytes =
          static_cast<std::uint64_t>(static_cast<double>(resident) * *workload.quota.percent / 100);
    }
    snapshot.workloads.push_back(std::move(state));
  }
  return snapshot;
}

void Daemon::policy_tick() {
  const Clock::time_point started = Clock::now();
  const tier::policy::Snapshot snapshot = policy_snapshot();
  tier::policy::Plan plan = policy_->plan(snapshot);
  const auto elapsed = std::chrono::duration<double>(Clock::now() - started);
  metrics_->observe_policy_tick(elapsed);
  ++ticks_;
  last_tick_ms_ = elapsed.count() * 1000;
  planned_moves_ = plan.moves.size();
  if (plan.moves.empty() && !one_tier_note_.empty() && !one_tier_logged_) {
    log::info() << "policy " << policy_name_ << " plans nothing here: " << one_tier_note_;
    one_tier_logged_ = true;
  }
  KernelRole kernel{config_.kernel_tiering};
  if (!plan.moves.empty() && kernel.mode == KernelTiering::coexist) {
    // Read at each tick that plans: under coexist anyone may change the knobs.
    kernel.promotes_into_room =
        kernel_promotes_into_room(read_kernel_tiering_now(tier::SysRoot(config_.topology_root)));
  }
  FilteredPlan filtered = filter_plan(kernel, paused_, plan, snapshot);
  note_withheld(filtered.withheld);
  if (placement_ && !filtered.execute.empty()) placement_->execute(std::move(filtered.execute));
  if (options_.status_line) std::cout << status_line() << std::endl;
}

}  // namespace tierd
