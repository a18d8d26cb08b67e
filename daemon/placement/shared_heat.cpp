#include "shared_heat.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "tier/memory/residency.hpp"

namespace tierd {

namespace {

// The HeatMap's memory budget is a fraction of the memory it stands for; a
// process that starts small and grows would otherwise be stuck with the
// coarsest map (64 KiB). 1 GiB's worth (1 MiB of table) is the floor.
constexpr std::uint64_t kMinTrackedBytes = std::uint64_t{1} << 30;
// Decay per epoch: the simulator's setting, under which the policies' goals
// are measured (a score halves every epoch without new samples).
constexpr double kDecay = 0.5;
// How long a source that failed to start waits before a retry (unless the
// process set changes first).
constexpr auto kRetry = std::chrono::seconds(30);
// A census re-reads the tracked mappings from smaps only when the process's
// maps changed, or after this many censuses with the same maps (a reserved
// heap filling up stops being sparse without a new mapping).
constexpr std::uint64_t kSmapsEvery = 30;

std::vector<tier::heat::AddressRange> mappings(const tier::SysRoot& root, pid_t pid) {
  std::vector<tier::heat::AddressRange> ranges;
  for (const tier::Mapping& m : tier::placeable_mappings(root, pid)) {
    ranges.push_back({m.start, m.end});
  }
  return ranges;
}

// /proc/PID/maps as a hash (0 when unreadable): kept per process to tell
// whether its mappings changed, at 8 bytes instead of the text's kilobytes
// (thousands of processes under discovery).
std::size_t maps_hash(const tier::SysRoot& root, pid_t pid) {
  const std::optional<std::string> maps = root.read("/proc/" + std::to_string(pid) + "/maps");
  if (!maps || maps->empty()) return 0;
  return std::hash<std::string>{}(*maps) | 1;  // never 0
}

std::uint64_t bytes_of(const std::vector<tier::heat::AddressRange>& ranges) {
  std::uint64_t sum = 0;
  for (const auto& r : ranges) sum += r.end - r.start;
  return sum;
}

}  // namespace

SharedHeat::SharedHeat(const tier::heat::SourceOptions& options, SourceFactory factory)
    : options_(options), factory_(std::move(factory)), root_(options.root) {
  if (root_ == nullptr) throw std::invalid_argument("SharedHeat: options.root is not set");
}

SharedHeat::~SharedHeat() {
  stop_source();
}

void SharedHeat::watch(const std::vector<pid_t>& pids,
                       const std::function<std::vector<std::string>()>& candidates,
                       Clock::time_point now) {
  const bool changed = pids != pids_;
  pids_ = pids;
  keep_processes(pids);
  if (pids.empty()) {
    stop_source();
    error_.clear();
    return;
  }
  if (changed) {
    retry_at_ = {};  // a new process may be what the failed start lacked
    if (source_) {
      bool retargeted = false;
      try {
        retargeted = source_->retarget(pids);
      } catch (const std::exception& e) {
        error_ = source_name_ + ": " + e.what();
      }
      if (retargeted) {
        ++counters_.retargets;
        active_ = true;
        error_.clear();
      } else {
        stop_source();  // restarted below with the new set
      }
    }
  }
  if (!source_ && now >= retry_at_) {
    start(candidates());
    if (!source_) retry_at_ = now + kRetry;
  }
}

void SharedHeat::start(const std::vector<std::string>& candidates) {
  std::string failures;
  for (const std::string& name : candidates) {
    const Clock::time_point began = Clock::now();
    try {
      auto source = factory_(name, options_);
      source->start(pids_);
      source_ = std::move(source);
      source_name_ = name;
      counters_.last_start_s = std::chrono::duration<double>(Clock::now() - began).count();
      break;
    } catch (const std::exception& e) {
      failures += (failures.empty() ? "" : "; ") + name + ": " + e.what();
    }
  }
  if (!source_) {
    error_ = candidates.empty() ? "no heat source is available"
                                : "no heat source started (" + failures + ")";
    return;
  }
  active_ = true;
  error_.clear();
  ++counters_.starts;
}

void SharedHeat::stop_source() {
  if (source_) source_->stop();
  source_.reset();
  source_name_.clear();
  active_ = false;
}

void SharedHeat::keep_processes(const std::vector<pid_t>& pids) {
  std::erase_if(processes_, [&](const auto& entry) {
    return !std::binary_search(pids.begin(), pids.end(), entry.first);
  });
  for (pid_t pid : pids) {
    if (processes_.contains(pid)) continue;
    std::vector<tier::heat::AddressRange> tracked = mappings(*root_, pid);  // read once
    tier::heat::HeatMapConfig config;
    config.decay = kDecay;
    config.tracked_bytes = std::max(kMinTrackedBytes, bytes_of(tracked));
    // Granules no finer than the regions the policy sees (kChunkBytes): a
    // region's heat is the sum of its granules either way, and the per-epoch
    // work (decay, granule_scores' sort, chunk_regions) then grows with the
    // regions, not the pages. With 4 KiB granules a 768 MiB workload's
    // regions cost 0.5-0.8 s of a vCPU per epoch under the latency model.
    config.min_granule_shift = kChunkShift;
    Process& process = processes_.emplace(pid, Process(tier::heat::HeatMap(config))).first->second;
    process.maps_hash = maps_hash(*root_, pid);
    process.tracked = std::move(tracked);
    process.map.set_tracked_ranges(process.tracked);
  }
}

// smaps (which placeable_mappings() reads, to tell a sparse mapping by its
// Rss) walks every page of the process: 2 s for 768 MiB in the emulated
// machine under the latency model, and a census comes every epoch with
// samples. /proc/PID/maps walks none, so it decides whether smaps is needed.
void SharedHeat::refresh_tracked(pid_t pid, Process& process) const {
  const std::size_t maps = maps_hash(*root_, pid);
  if (maps != 0 && maps == process.maps_hash && ++process.unchanged_censuses < kSmapsEvery) {
    return;
  }
  process.maps_hash = maps;
  process.unchanged_censuses = 0;
  process.tracked = mappings(*root_, pid);
  process.map.set_tracked_ranges(process.tracked);
}

void SharedHeat::poll(double now_s) {
  // The previous epoch decays before this one's samples are added, so the
  // policy reads them at weight 1 and the last epoch's at kDecay: the order
  // the simulator keeps (samples, plan, decay), so heat thresholds such as
  // exchange_min_heat mean the same evidence in both.
  ++epoch_;
  census_this_epoch_ = 0;
  for (auto& [pid, p] : processes_) {
    reset_epoch(p.activity);
    p.map.end_epoch();
    p.epoch_samples = 0;
  }
  samples_.clear();
  if (source_ && active_) {
    tier::heat::PollResult result = source_->poll(samples_);
    if (!result.active) {
      active_ = false;  // every process gone: the next new set wakes it
      error_ = result.stopped_reason;
    }
  }
  for (const tier::heat::AccessSample& s : samples_) {
    auto found = processes_.find(static_cast<pid_t>(s.pid));
    if (found == processes_.end()) continue;  // no longer watched
    found->second.map.add(s.addr, s.length, s.weight);
    record_activity(found->second.activity, s.addr, s.length, s.weight, now_s);
    ++found->second.epoch_samples;
  }
}

bool SharedHeat::census_due(pid_t pid, const Process& process) const {
  // Spread over the epochs by pid, so a steady set costs the same each epoch.
  const bool turn = (epoch_ + static_cast<std::uint64_t>(pid)) % kCensusEvery == 0;
  return !process.counted || process.moved || process.epoch_samples > 0 || turn;
}

void SharedHeat::moved(pid_t pid) {
  if (auto found = processes_.find(pid); found != processes_.end()) found->second.moved = true;
}

std::vector<tier::policy::Region> SharedHeat::regions(tier::MemorySyscalls& syscalls,
                                                      const std::vector<pid_t>& pids) {
  std::vector<tier::policy::Region> out;
  for (pid_t pid : pids) {
    auto found = processes_.find(pid);
    if (found == processes_.end()) continue;
    Process& p = found->second;
    const bool census = census_due(pid, p);
    const bool idle = p.epoch_samples == 0 && p.map.scored_granules() == 0;
    if (!census && idle && p.idle_regions) {
      out.insert(out.end(), p.idle_regions->begin(), p.idle_regions->end());
      continue;
    }
    p.idle_regions.reset();
    if (census) refresh_tracked(pid, p);
    std::vector<tier::policy::Region> regions =
        chunk_regions(pid, p.tracked, p.map.granule_scores(), p.activity);
    if (census) {
      ++census_this_epoch_;
      p.counted = true;
      p.moved = false;
      p.chunk_node.clear();
      if (!node_of_chunks(syscalls, pid, regions)) continue;  // exited meanwhile
      for (const tier::policy::Region& r : regions) p.chunk_node[r.start] = r.node;
    } else {
      // The last census's nodes; chunks it found nothing in stay out.
      std::erase_if(regions, [&](tier::policy::Region& r) {
        auto node = p.chunk_node.find(r.start);
        if (node == p.chunk_node.end()) return true;
        r.node = node->second;
        return false;
      });
    }
    if (idle) p.idle_regions = regions;
    out.insert(out.end(), regions.begin(), regions.end());
  }
  return out;
}

std::uint64_t SharedHeat::epoch_samples(const std::vector<pid_t>& pids) const {
  std::uint64_t sum = 0;
  for (pid_t pid : pids) {
    if (auto found = processes_.find(pid); found != processes_.end()) {
      sum += found->second.epoch_samples;
    }
  }
  return sum;
}

tier::heat::SourceCounters SharedHeat::source_counters() const {
  return source_ ? source_->counters() : tier::heat::SourceCounters{};
}

std::vector<int> cpu_nodes_of(const tier::SysRoot& root, const std::vector<pid_t>& pids,
                              const std::vector<int>& cpu_node) {
  std::map<int, unsigned> threads_by_node;
  std::error_code ec;
  for (pid_t pid : pids) {
    const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& entry : std::filesystem::directory_iterator(root.path(task_dir), ec)) {
      auto stat = root.read(task_dir + "/" + entry.path().filename().string() + "/stat");
      if (!stat) continue;
      // Fields after the command (which may hold spaces): state is field 3,
      // so the processor (field 39) is the 37th after the closing ')'.
      const std::size_t paren = stat->rfind(')');
      if (paren == std::string::npos) continue;
      std::istringstream fields(stat->substr(paren + 1));
      std::string field;
      int cpu = -1;
      for (int i = 3; i <= 39 && fields >> field; ++i) {
        if (i == 39) cpu = std::atoi(field.c_str());
      }
      if (cpu >= 0 && static_cast<std::size_t>(cpu) < cpu_node.size() &&
          cpu_node[static_cast<std::size_t>(cpu)] >= 0) {
        ++threads_by_node[cpu_node[static_cast<std::size_t>(cpu)]];
      }
    }
  }
  std::vector<std::pair<int, unsigned>> ranked(threads_by_node.begin(), threads_by_node.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<int> nodes;
  for (const auto& [node, count] : ranked) nodes.push_back(node);
  return nodes;
}

}  // namespace tierd
