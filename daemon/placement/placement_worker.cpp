#include "placement_worker.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <iterator>
#include <stdexcept>

#include "log.hpp"
#include "steady_seconds.hpp"
#include "tier/heat/selection.hpp"
#include "tier/memory/memory_policy.hpp"
#include "tier/memory/residency.hpp"

namespace tierd {

namespace {

using Clock = std::chrono::steady_clock;

// How long `auto`'s probe of the sources stays good.
constexpr auto kProbeTtl = std::chrono::seconds(30);
// A process's memory policy, read for a round of moves, is reused by the
// next rounds for kPolicyReuse, or longer where reading it is dear (numa_maps
// walks every page: ~15 ms per GiB resident, measured) so that the reads
// take at most 1 % of the worker's time (kPolicyReadDuty); and never once
// the process's mappings changed (/proc/PID/maps, no page walk). Its regions
// are left out of planning for kPolicyMemoTtl (or that longer reuse): after
// that they are planned again and the policy is read afresh, so a process
// that dropped its mbind is placed again within a minute.
constexpr auto kPolicyReuse = std::chrono::seconds(10);
constexpr double kPolicyReadDuty = 0.01;
constexpr auto kPolicyMemoTtl = std::chrono::seconds(60);

// How long a memo read in `read_seconds` is reused for moves.
Clock::duration policy_reuse(double read_seconds) {
  return std::max<Clock::duration>(
      kPolicyReuse, std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(read_seconds / kPolicyReadDuty)));
}

double seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Every process of every workload, sorted and unique: what the source watches.
std::vector<pid_t> all_pids(const std::vector<WatchedWorkload>& workloads) {
  std::vector<pid_t> pids;
  for (const WatchedWorkload& w : workloads) pids.insert(pids.end(), w.pids.begin(), w.pids.end());
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

// Moves grouped into batches of one workload, process, target and direction,
// in plan order of each group's first move.
std::vector<std::pair<MoveOutcome, std::vector<tier::PageUnit>>> batches(
    const std::vector<PlannedMove>& moves) {
  std::vector<std::pair<MoveOutcome, std::vector<tier::PageUnit>>> out;
  std::map<std::tuple<std::string, pid_t, unsigned, int>, std::size_t> index;
  for (const PlannedMove& m : moves) {
    auto key = std::make_tuple(m.move.workload_id, m.move.pid, m.move.target_node,
                               static_cast<int>(m.direction));
    auto [it, added] = index.try_emplace(key, out.size());
    if (added) {
      MoveOutcome outcome;
      outcome.workload_id = m.move.workload_id;
      outcome.pid = m.move.pid;
      outcome.target_node = m.move.target_node;
      outcome.from_node = m.from_node;
      outcome.direction = m.direction;
      outcome.reason = m.move.reason;
      out.push_back({std::move(outcome), {}});
    }
    auto& [outcome, units] = out[it->second];
    // One source node for the whole batch, or none known: the loop applies
    // a batch's bytes to the workload's residency only from a known node.
    if (!added && outcome.from_node != m.from_node) outcome.from_node = -1;
    ++outcome.moves;
    for (std::uint64_t a = m.move.start & ~std::uint64_t{4095}; a < m.move.end; a += 4096) {
      units.push_back({a, 4096, std::nullopt});
    }
  }
  return out;
}

}  // namespace

PlacementWorker::PlacementWorker(boost::asio::io_context& io, PlacementWorkerSettings settings,
                                 OnHeat on_heat, OnMoves on_moves)
    : io_(io),
      settings_(std::move(settings)),
      on_heat_(std::move(on_heat)),
      on_moves_(std::move(on_moves)),
      syscalls_(settings_.syscalls ? *settings_.syscalls : tier::real_memory_syscalls()) {
  if (settings_.source_options.root == nullptr) {
    throw std::invalid_argument("PlacementWorker: source_options.root is not set");
  }
  if (!settings_.factory) {
    settings_.factory = [](std::string_view name, const tier::heat::SourceOptions& options) {
      return tier::heat::make_source(name, options);
    };
  }
  heat_ = std::make_unique<SharedHeat>(settings_.source_options, settings_.factory);
  thread_ = std::thread([this] { run(); });
}

PlacementWorker::~PlacementWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    cancel_moves_.store(true);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PlacementWorker::set_workloads(std::vector<WatchedWorkload> workloads) {
  std::lock_guard lock(mutex_);
  wanted_ = std::move(workloads);
}

void PlacementWorker::execute(std::vector<PlannedMove> moves) {
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(moves);
  }
  wake_.notify_all();
}

void PlacementWorker::run() {
  Clock::time_point next_epoch = Clock::now() + settings_.epoch;
  for (;;) {
    std::optional<std::vector<PlannedMove>> moves;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_until(lock, next_epoch, [this] { return stopping_ || pending_.has_value(); });
      if (stopping_) break;
      moves = std::exchange(pending_, std::nullopt);
    }
    if (moves) {
      carry_out(std::move(*moves));
      continue;
    }
    if (Clock::now() >= next_epoch) {
      sample_epoch();
      next_epoch += settings_.epoch;
      if (next_epoch < Clock::now()) next_epoch = Clock::now() + settings_.epoch;
    }
  }
  heat_.reset();  // stops the source on this thread
}

std::vector<std::string> PlacementWorker::candidates() {
  if (settings_.heat_source != "auto") return {settings_.heat_source};
  const Clock::time_point now = Clock::now();
  if (probed_at_ == Clock::time_point{} || now - probed_at_ >= kProbeTtl) {
    auto_candidates_ =
        settings_.auto_candidates ? settings_.auto_candidates() : std::vector<std::string>{};
    probed_at_ = now;
  }
  return auto_candidates_;
}

void PlacementWorker::sample_epoch() {
  std::vector<WatchedWorkload> wanted;
  {
    std::lock_guard lock(mutex_);
    wanted = wanted_;
  }
  const Clock::time_point now = Clock::now();
  const double cpu_began = thread_cpu_seconds();
  const tier::SysRoot& root = *settings_.source_options.root;
  const bool off = settings_.heat_source == "off";
  const std::vector<pid_t> pids = all_pids(wanted);
  HeatEpoch epoch;
  heat_->watch(
      pids, [&] { return off ? std::vector<std::string>{} : candidates(); }, now);
  epoch.timings.watch_ms = ms_since(now);
  Clock::time_point phase = Clock::now();
  heat_->poll(seconds(now));
  epoch.timings.poll_ms = ms_since(phase);
  epoch.source = heat_->source_name();
  epoch.error = off ? "heat_source is off" : heat_->error();
  epoch.counters = heat_->source_counters();
  epoch.follow = heat_->counters();
  epoch.processes = pids.size();
  ++epoch_;
  std::map<std::string, CpuNodes> cpu_nodes;
  for (const WatchedWorkload& w : wanted) {
    WorkloadHeatView view;
    view.id = w.id;
    view.source = epoch.source;
    view.heat_error = epoch.error;
    view.epoch_samples = heat_->epoch_samples(w.pids);
    phase = Clock::now();
    view.regions = heat_->regions(syscalls_, w.pids);
    leave_out_self_placed(w.pids, view);
    epoch.timings.regions_ms += ms_since(phase);
    phase = Clock::now();
    // Where the threads ran: read (a stat per thread) on the census's
    // schedule - when the workload is new or changed, has samples, or every
    // kCensusEvery epochs.
    CpuNodes known;
    if (auto found = cpu_nodes_.find(w.id); found != cpu_nodes_.end()) known = found->second;
    if (known.epoch == 0 || known.pids != w.pids || view.epoch_samples > 0 ||
        epoch_ - known.epoch >= kCensusEvery) {
      known = {cpu_nodes_of(root, w.pids, settings_.source_options.cpu_node), w.pids, epoch_};
    }
    view.cpu_nodes = known.nodes;
    epoch.timings.cpu_nodes_ms += ms_since(phase);
    cpu_nodes.emplace(w.id, std::move(known));
    epoch.views.push_back(std::move(view));
  }
  cpu_nodes_ = std::move(cpu_nodes);
  std::erase_if(policy_memo_, [&](const auto& entry) {
    const PolicyMemo& memo = entry.second;
    return now - memo.read_at >=
           std::max<Clock::duration>(kPolicyMemoTtl, policy_reuse(memo.read_seconds));
  });
  epoch.census = heat_->census_this_epoch();
  epoch.timings.cpu_ms = (thread_cpu_seconds() - cpu_began) * 1e3;
  // The handler carries its own copy of the callback: it may run after a
  // reload replaced this worker.
  boost::asio::post(
      io_, [done = on_heat_, epoch = std::move(epoch)]() mutable { done(std::move(epoch)); });
}

// The policy a move of `pid` must honour: the memo while fresh and the
// process's mappings are the ones it was read for, else read now. Unreadable
// while the process lives: nothing of it is moved (the mover counts it
// against_policy); gone: the mover finds that out (process_gone).
const tier::ProcessMemoryPolicy& PlacementWorker::policy_for_moves(pid_t pid) {
  const tier::SysRoot& root = *settings_.source_options.root;
  const Clock::time_point now = Clock::now();
  auto memo = policy_memo_.find(pid);
  if (memo != policy_memo_.end() &&
      now - memo->second.read_at < policy_reuse(memo->second.read_seconds)) {
    auto maps = root.read("/proc/" + std::to_string(pid) + "/maps");
    if (maps && memo->second.policy.same_mappings(*maps)) return memo->second.policy;
  }
  PolicyMemo fresh;
  if (auto policy = tier::read_process_memory_policy(root, pid)) {
    fresh.policy = std::move(*policy);
  } else if (root.process_exists(pid)) {
    fresh.policy.unknown.emplace(0, "numa_maps unreadable");
  }
  fresh.read_at = Clock::now();
  fresh.read_seconds = std::chrono::duration<double>(fresh.read_at - now).count();
  PolicyMemo& kept = policy_memo_[pid];
  kept = std::move(fresh);
  return kept.policy;
}

void PlacementWorker::leave_out_self_placed(const std::vector<pid_t>& pids,
                                            WorkloadHeatView& view) {
  std::map<pid_t, const tier::ProcessMemoryPolicy*> known;
  for (pid_t pid : pids) {
    if (auto it = policy_memo_.find(pid); it != policy_memo_.end()) {
      known.emplace(pid, &it->second.policy);
    }
  }
  if (known.empty()) return;
  std::erase_if(view.regions, [&](const tier::policy::Region& r) {
    auto policy = known.find(r.pid);
    const bool own =
        policy != known.end() && r.end > r.start &&
        (policy->second->places_itself(r.start) || policy->second->places_itself(r.end - 1));
    if (own) view.self_placed_bytes += r.bytes();
    return own;
  });
  // The nodes every known process's cpuset allows.
  std::optional<std::vector<unsigned>> mems;
  for (const auto& [pid, policy] : known) {
    if (!policy->mems_allowed) continue;
    const std::vector<unsigned>& ids = policy->mems_allowed->ids();
    if (!mems) {
      mems = ids;
      continue;
    }
    std::vector<unsigned> both;
    std::set_intersection(mems->begin(), mems->end(), ids.begin(), ids.end(),
                          std::back_inserter(both));
    mems = std::move(both);
  }
  if (mems) view.mems_allowed = std::move(*mems);
}

void PlacementWorker::carry_out(std::vector<PlannedMove> moves) {
  std::vector<MoveOutcome> outcomes;
  tier::PageMover mover(syscalls_);
  for (auto& [outcome, units] : batches(moves)) {
    tier::MoveOptions options;
    // tierd never moves a page where the process's mbind/set_mempolicy or
    // cpuset would not have put it.
    options.policy = &policy_for_moves(outcome.pid);
    options.cancel = &cancel_moves_;  // a stopping tierd does not wait for the whole move
    // Never fill the target below its high watermark (or 2% of it): the
    // policy planned with last epoch's free figures, the node may be fuller.
    tier::watch_node_free_memory(options, *settings_.source_options.root, outcome.target_node);
    log::debug() << "moving " << units.size() << " page(s) of pid " << outcome.pid << " ("
                 << outcome.workload_id << ") to node " << outcome.target_node;
    outcome.report = mover.move(outcome.pid, units, outcome.target_node, options);
    heat_->moved(outcome.pid);
    outcomes.push_back(std::move(outcome));
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
  }
  boost::asio::post(io_, [done = on_moves_, outcomes = std::move(outcomes)]() mutable {
    done(std::move(outcomes));
  });
}

}  // namespace tierd
