// The placement worker: one thread that keeps the heat source of every
// placed process running (one source for all of them, SharedHeat), turns its
// samples into each workload's regions (once per sampling epoch), and carries
// out the moves the policy tick hands it.
//
// Why one thread for both: a move changes the nodes the next region census
// reads, and a census racing a move would report half-moved regions; on this
// thread they simply alternate. Moves are bounded by the policy's budget per
// tick, so sampling is delayed by at most one tick's worth of migration.
//
// Contract: set_workloads() and execute() are called from the loop; results
// are posted back to the loop (on_heat once per epoch, on_moves after each
// batch). A source that fails to start is reported in every view and retried
// after a back-off. The destructor stops the source and waits.
#pragma once

#include <sys/types.h>

#include <atomic>
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
#include "shared_heat.hpp"
#include "tier/memory/memory_policy.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "tier/memory/page_mover.hpp"

namespace tierd {

struct WatchedWorkload {
  std::string id;
  std::vector<pid_t> pids;
};

/// One workload as the worker last saw it.
struct WorkloadHeatView {
  std::string id;
  std::vector<tier::policy::Region> regions;
  std::vector<int> cpu_nodes;       // most threads first
  std::string source;               // heat source name, "" when none runs
  std::string heat_error;           // why there is no heat ("" when a source runs)
  std::uint64_t epoch_samples = 0;  // samples of this workload's processes
  /// Regions left out of `regions`: a process's own memory policy (mbind,
  /// set_mempolicy) places them, not tierd. Known for the processes tierd
  /// last tried to move (their policy is read then), else 0.
  std::uint64_t self_placed_bytes = 0;
  /// The memory nodes its processes' cpusets allow, where tierd read them
  /// (as above); empty when not known.
  std::vector<unsigned> mems_allowed;
};

/// One epoch's heat: every workload's view, and the one source's figures.
struct HeatEpoch {
  std::vector<WorkloadHeatView> views;
  std::string source;                   // "" when none runs
  std::string error;                    // why there is no heat ("" when the source runs)
  tier::heat::SourceCounters counters;  // the running source's totals since it started
  SharedHeatCounters follow;            // starts and retargets since the worker started
  std::size_t processes = 0;            // processes watched
  std::uint64_t census = 0;             // of them, counted again this epoch
  /// Where this epoch's sampling went, in milliseconds of wall time:
  /// following the process set (a source start included), draining the
  /// source, each workload's regions (HeatMap scores, census), its threads'
  /// nodes; and the worker thread's CPU time for all of it.
  struct Timings {
    double watch_ms = 0, poll_ms = 0, regions_ms = 0, cpu_nodes_ms = 0, cpu_ms = 0;
  } timings;
};

/// A batch of planned moves of one workload, process, target and direction,
/// carried out in one PageMover call.
struct MoveOutcome {
  std::string workload_id;
  pid_t pid = 0;
  unsigned target_node = 0;
  int from_node = -1;  // every move's source node; -1 when unknown or mixed
  MigrationDirection direction = MigrationDirection::promote;
  std::string reason;  // the first move's reason
  std::size_t moves = 0;
  tier::MoveReport report;
};

struct PlacementWorkerSettings {
  std::string heat_source = "auto";  // "auto", a name, or "off"
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
  using OnHeat = std::function<void(HeatEpoch)>;
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
  std::atomic<bool> cancel_moves_{false};  // set with stopping_: a move stops at its next batch

  // Worker thread only.
  std::unique_ptr<SharedHeat> heat_;
  struct CpuNodes {
    std::vector<int> nodes;
    std::vector<pid_t> pids;  // the processes they were read for
    std::uint64_t epoch = 0;
  };
  // Per workload: where its threads ran, re-read on the census's schedule.
  std::map<std::string, CpuNodes> cpu_nodes_;
  std::uint64_t epoch_ = 0;
  // Each moved process's own memory policy, as last read for its moves:
  // the next epochs' regions leave out what it places itself (the policy
  // stops planning it), and the next rounds of moves reuse it while it is
  // fresh (policy_for_moves).
  struct PolicyMemo {
    tier::ProcessMemoryPolicy policy;
    std::chrono::steady_clock::time_point read_at;
    double read_seconds = 0;  // what reading numa_maps took (it walks every page)
  };
  std::map<pid_t, PolicyMemo> policy_memo_;
  const tier::ProcessMemoryPolicy& policy_for_moves(pid_t pid);
  void leave_out_self_placed(const std::vector<pid_t>& pids, WorkloadHeatView& view);
  std::vector<std::string> auto_candidates_;
  std::chrono::steady_clock::time_point probed_at_{};
  std::thread thread_;
};

}  // namespace tierd
