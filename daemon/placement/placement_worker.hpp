// The placement worker: one thread that keeps every workload's heat source
// running, turns its samples into the regions a policy reads (once per
// sampling epoch), and carries out the moves the policy tick hands it.
//
// Why one thread for both: a move changes the nodes the next region census
// reads, and a census racing a move would report half-moved regions; on this
// thread they simply alternate. Moves are bounded by the policy's budget per
// tick, so sampling is delayed by at most one tick's worth of migration.
//
// Contract: set_workloads() and execute() are called from the loop; results
// are posted back to the loop (on_heat once per epoch, on_moves after each
// batch). A source that fails to start is reported in the workload's view and
// retried after a back-off. The destructor stops every source and waits.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "plan_filter.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "tier/memory/page_mover.hpp"
#include "workload_heat.hpp"

namespace tierd {

struct WatchedWorkload {
  std::string id;
  std::vector<pid_t> pids;
};

/// One workload as the worker last saw it.
struct WorkloadHeatView {
  std::string id;
  std::vector<tier::policy::Region> regions;
  std::vector<int> cpu_nodes;  // most threads first
  std::string source;          // heat source name, "" when none runs
  std::string heat_error;      // why there is no heat ("" when a source runs)
  std::uint64_t epoch_samples = 0;
  tier::heat::SourceCounters counters;
};

/// A batch of planned moves of one workload, process, target and direction,
/// carried out in one PageMover call.
struct MoveOutcome {
  std::string workload_id;
  pid_t pid = 0;
  unsigned target_node = 0;
  int from_node = -1;
  MigrationDirection direction = MigrationDirection::promote;
  std::string reason;  // the first move's reason
  std::size_t moves = 0;
  tier::MoveReport report;
};

struct PlacementWorkerSettings {
  std::string heat_source = "auto";  // "auto", a name, or "off"
  /// Workloads placed at once, in set_workloads() order (the daemon lists
  /// online first, then by priority): each costs a heat source (descriptors,
  /// a kdamond or BPF ring) and a region census per epoch. The rest are
  /// reported as not placed.
  std::size_t max_placed = 64;
  std::chrono::milliseconds epoch{1000};
  /// cpu_node and root filled by the daemon; root (the /proc and /sys the
  /// sources and the census read) must be set and outlive the worker.
  tier::heat::SourceOptions source_options;
  SourceFactory factory;                     // tier::heat::make_source when empty
  tier::MemorySyscalls* syscalls = nullptr;  // real_memory_syscalls() when null
  /// Source names `auto` may use, in order; re-probed at most every 30 s.
  std::function<std::vector<std::string>()> auto_candidates;
};

class PlacementWorker {
 public:
  using OnHeat = std::function<void(std::vector<WorkloadHeatView>)>;
  using OnMoves = std::function<void(std::vector<MoveOutcome>)>;

  PlacementWorker(boost::asio::io_context& io, PlacementWorkerSettings settings, OnHeat on_heat,
                  OnMoves on_moves);
  ~PlacementWorker();
  PlacementWorker(const PlacementWorker&) = delete;
  PlacementWorker& operator=(const PlacementWorker&) = delete;

  void set_workloads(std::vector<WatchedWorkload> workloads);
  /// Queues moves for the worker; replaces those it has not started.
  void execute(std::vector<PlannedMove> moves);

 private:
  void run();
  void sample_epoch();
  void carry_out(std::vector<PlannedMove> moves);
  std::vector<std::string> candidates();

  struct Watched {
    std::unique_ptr<WorkloadHeat> heat;
    std::vector<pid_t> pids;
    std::string error;
    std::chrono::steady_clock::time_point retry_at{};
  };

  boost::asio::io_context& io_;
  PlacementWorkerSettings settings_;
  OnHeat on_heat_;
  OnMoves on_moves_;
  tier::MemorySyscalls& syscalls_;

  std::mutex mutex_;  // guards the three below
  std::condition_variable wake_;
  std::vector<WatchedWorkload> wanted_;
  std::optional<std::vector<PlannedMove>> pending_;
  bool stopping_ = false;

  // Worker thread only.
  std::map<std::string, Watched> watched_;
  std::vector<std::string> auto_candidates_;
  std::chrono::steady_clock::time_point probed_at_{};
  std::thread thread_;
};

}  // namespace tierd
