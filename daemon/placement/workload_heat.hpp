// One workload's continuous heat: a heat source watching its processes for
// as long as tierd manages it (not a timed `tierctl heat` collection), one
// HeatMap per process, and the per-chunk activity the policies read.
//
// Contract: the constructor starts a source (the named one, or under "auto"
// the first in `tierd --list-sources` order that starts) and throws
// tier::heat::SourceError naming every source that failed; the destructor
// stops it (every kernel change undone). poll() is called once per epoch: it
// drains the source, credits the samples, decays the maps and re-reads the
// processes' mappings. Used on the placement worker's thread only.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "heat_regions.hpp"
#include "tier/heat/source.hpp"
#include "tier/posix/sysroot.hpp"

namespace tierd {

/// Builds a source by name (tier::heat::make_source in the daemon; scripted
/// sources in unit tests).
using SourceFactory = std::function<std::unique_ptr<tier::heat::HeatSource>(
    std::string_view name, const tier::heat::SourceOptions& options)>;

class WorkloadHeat {
 public:
  /// `candidates`: source names to try in order (one name, or the auto list);
  /// `options.root` must be set (the mappings are read through it).
  WorkloadHeat(std::vector<pid_t> pids, const std::vector<std::string>& candidates,
               const tier::heat::SourceOptions& options, const SourceFactory& factory);
  ~WorkloadHeat();
  WorkloadHeat(const WorkloadHeat&) = delete;
  WorkloadHeat& operator=(const WorkloadHeat&) = delete;

  /// Drains the source and ends the epoch at `now_s` (monotonic seconds).
  void poll(double now_s);

  /// Every resident 2 MiB region of every process with its heat and node.
  std::vector<tier::policy::Region> regions(tier::MemorySyscalls& syscalls);

  const std::string& source_name() const { return source_name_; }
  tier::heat::SourceCounters counters() const { return source_->counters(); }
  bool active() const { return active_; }
  const std::string& stopped_reason() const { return stopped_reason_; }
  /// Samples credited in the last epoch (all processes).
  std::uint64_t epoch_samples() const { return epoch_samples_; }

 private:
  struct Process {
    tier::heat::HeatMap map;
    std::vector<tier::heat::AddressRange> tracked;
    ActivityMap activity;
  };
  Process& process(pid_t pid);
  void refresh_tracked(pid_t pid, Process& process) const;

  std::vector<pid_t> pids_;
  const tier::SysRoot* root_;
  std::unique_ptr<tier::heat::HeatSource> source_;
  std::string source_name_;
  std::map<pid_t, Process> processes_;
  std::vector<tier::heat::AccessSample> samples_;  // reused buffer
  bool active_ = true;
  std::string stopped_reason_;
  std::uint64_t epoch_samples_ = 0;
};

/// Nodes the processes' threads last ran on, most threads first
/// (/proc/PID/task/TID/stat field 39 and the CPU->node table).
std::vector<int> cpu_nodes_of(const tier::SysRoot& root, const std::vector<pid_t>& pids,
                              const std::vector<int>& cpu_node);

}  // namespace tierd
