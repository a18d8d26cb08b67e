// The heat of every process tierd places, from one heat source for all of
// them: one BPF program (keyed by pid), one kdamond, one soft-dirty pass -
// not one source per workload, so the number of workloads tierd can place is
// not bounded by descriptors, kdamonds or BPF rings. Each process keeps its
// own HeatMap and per-chunk activity; a workload's regions are those of its
// processes.
//
// Contract: watch() sets the processes (the union over all workloads). The
// first call with processes starts a source (the named one, or under "auto"
// the first in `tierd --list-sources` order that starts); a failure is kept
// in error() and retried after a back-off, or at once when the process set
// changes. A changed set is handed to the running source (retarget); a
// source that cannot take it is restarted. Either way the HeatMaps of the
// processes that stay are kept. poll() is called once per epoch: it drains
// the source, credits the samples and decays the maps. The destructor stops
// the source (every kernel change undone). Used on the placement worker's
// thread only.
//
// The census (a process's mappings from /proc/PID/maps and the node of each
// chunk from a sampled move_pages query) is what grows with the number of
// processes, so it is budgeted: a process is counted again in an epoch where
// it has samples, where tierd moved its pages (moved()), when it is new, and
// otherwise once every kCensusEvery epochs; in between its regions carry
// this epoch's heat on the mappings and nodes of its last census. An idle
// process's nodes can so lag the kernel's own migrations by that many epochs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heat_regions.hpp"
#include "tier/heat/source.hpp"
#include "tier/posix/sysroot.hpp"

namespace tierd {

/// Builds a source by name (tier::heat::make_source in the daemon; scripted
/// sources in unit tests).
using SourceFactory = std::function<std::unique_ptr<tier::heat::HeatSource>(
    std::string_view name, const tier::heat::SourceOptions& options)>;

/// How the source has followed the process set since tierd started.
struct SharedHeatCounters {
  std::uint64_t starts = 0;     // sources started (the first, and every restart)
  std::uint64_t retargets = 0;  // process sets changed in place
  double last_start_s = 0;      // what the last successful start took (an eBPF
                                // program's load and attach, a kdamond's setup)
};

/// An idle process is counted again at least this often (epochs).
inline constexpr std::uint64_t kCensusEvery = 30;

class SharedHeat {
 public:
  using Clock = std::chrono::steady_clock;
  /// `options.root` must be set and outlive this (mappings are read through it).
  SharedHeat(const tier::heat::SourceOptions& options, SourceFactory factory);
  ~SharedHeat();
  SharedHeat(const SharedHeat&) = delete;
  SharedHeat& operator=(const SharedHeat&) = delete;

  /// Watches `pids` (sorted, unique). `candidates` is asked for the source
  /// names to try only when a source must be started; an empty `candidates`
  /// result (heat_source "off", or nothing available) leaves the processes
  /// without heat: their regions are resident chunks at heat 0.
  void watch(const std::vector<pid_t>& pids,
             const std::function<std::vector<std::string>()>& candidates, Clock::time_point now);

  /// Drains the source and ends the epoch at `now_s` (monotonic seconds).
  void poll(double now_s);

  /// Every resident 2 MiB region of `pids` (watched ones) with its heat and
  /// node (as of its last census, see above).
  std::vector<tier::policy::Region> regions(tier::MemorySyscalls& syscalls,
                                            const std::vector<pid_t>& pids);
  /// tierd moved pages of `pid`: its next regions() counts it again.
  void moved(pid_t pid);
  /// Processes counted (census) in the last regions() calls of this epoch.
  std::uint64_t census_this_epoch() const { return census_this_epoch_; }
  /// Samples credited to `pids` in the last epoch.
  std::uint64_t epoch_samples(const std::vector<pid_t>& pids) const;

  const std::string& source_name() const { return source_name_; }  // "" when none runs
  /// Why there is no heat: the start failure, or why the source stopped.
  const std::string& error() const { return error_; }
  tier::heat::SourceCounters source_counters() const;
  const SharedHeatCounters& counters() const { return counters_; }

 private:
  struct Process {
    explicit Process(tier::heat::HeatMap heat_map) : map(std::move(heat_map)) {}
    tier::heat::HeatMap map;
    std::vector<tier::heat::AddressRange> tracked;
    ActivityMap activity;
    std::uint64_t epoch_samples = 0;
    bool counted = false;                     // has had a census
    bool moved = false;                       // tierd moved pages since the census
    std::map<std::uint64_t, int> chunk_node;  // chunk start -> node at the census
    std::size_t maps_hash = 0;                // of /proc/PID/maps when `tracked` was read
    std::uint64_t unchanged_censuses = 0;     // censuses since, with the same maps
    // The regions of the last regions() call, when the process had neither
    // heat nor samples then: until it has either or a census is due, its
    // regions are the same (a server's thousands of idle processes).
    std::optional<std::vector<tier::policy::Region>> idle_regions;
  };
  bool census_due(pid_t pid, const Process& process) const;
  void keep_processes(const std::vector<pid_t>& pids);
  void start(const std::vector<std::string>& candidates);
  void stop_source();
  void refresh_tracked(pid_t pid, Process& process) const;

  tier::heat::SourceOptions options_;
  SourceFactory factory_;
  const tier::SysRoot* root_;
  std::vector<pid_t> pids_;
  std::map<pid_t, Process> processes_;
  std::unique_ptr<tier::heat::HeatSource> source_;
  std::string source_name_;
  bool active_ = false;  // the source delivers (started, not stopped)
  std::string error_;
  Clock::time_point retry_at_{};
  tier::heat::SourceCounters last_counters_;  // of a stopped source, until the next starts
  SharedHeatCounters counters_;
  std::uint64_t epoch_ = 0;
  std::uint64_t census_this_epoch_ = 0;
  std::vector<tier::heat::AccessSample> samples_;  // reused buffer
};

/// Nodes the processes' threads last ran on, most threads first
/// (/proc/PID/task/TID/stat field 39 and the CPU->node table).
std::vector<int> cpu_nodes_of(const tier::SysRoot& root, const std::vector<pid_t>& pids,
                              const std::vector<int>& cpu_node);

}  // namespace tierd
