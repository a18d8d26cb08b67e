// Heat collection: run one heat source (plus an optional cross-check source)
// against a process for a while and turn its samples into a report.
//
// Contract: collect_heat() starts the sources, polls them every `interval`
// (one HeatMap epoch per poll), resolves the memory node of sampled pages the
// source could not name (batched move_pages queries through MemorySyscalls)
// and the CPU node of the accessing task (from the topology), and stops every
// source before it returns — also when the process exits (the report then
// says so in stopped_reason) or `cancel` is set. Only the primary source's
// failure to start is an error (SourceError); a cross-check source that fails
// is reported in its SourceRun. With `on_epoch` set, every poll of the primary
// source hands its samples, as polled (nodes not yet resolved), to the caller
// (a trace recorder) before the HeatMap sees them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tier/heat/heatmap.hpp"
#include "tier/heat/sample.hpp"
#include "tier/heat/selection.hpp"
#include "tier/heat/source.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"

namespace tier::heat {

struct CollectOptions {
  std::vector<std::string> sources;  // primary first; a second one is a cross-check
  std::chrono::milliseconds duration{10000};
  std::chrono::milliseconds interval{1000};
  SourceOptions source;                       // cpu_node is filled from the topology when empty
  double decay = 0.9;                         // HeatMap decay per epoch (per interval)
  std::size_t top = 0;                        // hot ranges to report; 0 = every range with a score
  const std::atomic<bool>* cancel = nullptr;  // set (e.g. by SIGINT) to end early
  bool kernel_activity = true;  // also watch run time per node and kernel migrations (eBPF)
  /// Builds a source by name; make_source() (selection.hpp) when empty. The
  /// seam unit tests use to script sources.
  std::function<std::unique_ptr<HeatSource>(std::string_view, const SourceOptions&)> factory;
  /// Called after each poll of the primary source with that poll's samples
  /// (also an empty batch) and the index of the epoch they belong to (0, 1,
  /// ...: HeatReport::epochs at that moment). Indices never decrease; the
  /// polls that end the run (at the deadline and the final drain) may share
  /// one index, the last one being a partial epoch. Runs on the collecting
  /// thread and must not throw: sources are only stopped on a normal return.
  /// Empty: nothing is called.
  std::function<void(const std::vector<AccessSample>& samples, std::uint64_t epoch)> on_epoch;
};

struct SourceRun {
  std::string name;
  SourceCounters counters;
  std::map<std::string, std::uint64_t> kinds;  // samples by SampleKind name
  std::string error;                           // failed to start (cross-check only)
  std::string stopped_reason;                  // stopped before the end (process exited, ...)
};

struct HotRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  // exclusive
  int node = -1;          // memory node of these pages now, -1 not resident/unknown
  double score = 0;
};

struct NodeScore {
  int node = -1;
  double score = 0;
};

/// How far two sources agree, over 2 MiB blocks holding any scored memory.
struct Agreement {
  std::string primary, other;
  std::uint64_t block_bytes = std::uint64_t{2} << 20;
  std::uint64_t primary_blocks = 0, other_blocks = 0, common_blocks = 0;
  double jaccard = 0;          // common / union
  double primary_covered = 0;  // common / primary_blocks
  double other_covered = 0;    // common / other_blocks
};

/// The kernel's side during the run (see src/heat/kernel_activity.hpp).
struct KernelActivity {
  double seconds = 0;  // how long the programs watched (attach to read: a bit over the run)
  std::map<int, std::uint64_t> run_time_ns_by_node;  // the process's on-CPU time by CPU node
  std::string run_time_hook, run_time_error;         // attach point, or why not watched
  std::uint64_t migrations_succeeded = 0;            // pages the kernel migrated (all processes)
  std::uint64_t migrations_failed = 0;
  std::map<std::string, std::uint64_t> migrated_by_reason;  // "numa_misplaced", "demotion", ...
  std::string migrations_hook, migrations_error;
};

struct HeatReport {
  int pid = 0;
  std::vector<SourceRun> sources;  // [0] is the primary
  double seconds = 0;
  std::uint64_t epochs = 0;
  std::uint64_t granule_bytes = 0;
  std::size_t heatmap_bytes = 0;
  std::uint64_t tracked_bytes = 0;
  std::vector<HotRange> hot;        // by score, hottest first
  std::vector<NodeScore> per_node;  // decayed sample weight by memory node
  CrossNumaMatrix cross_numa;
  std::uint64_t unresolved_nodes = 0;  // samples whose memory node stayed unknown
  std::optional<Agreement> agreement;
  std::optional<KernelActivity> kernel;  // with CollectOptions::kernel_activity
  std::string stopped_reason;            // why collection ended early, empty when it ran its course
  std::optional<std::uint64_t> cpu_ns;   // the process's on-CPU time during the run, if readable
};

HeatReport collect_heat(const SysRoot& root, const Topology& topology, MemorySyscalls& syscalls,
                        int pid, const CollectOptions& options);

/// One source that failed to start under `auto` and yielded to the next.
struct Fallback {
  std::string source;
  std::string error;
};

/// collect_heat() for a `--source` spec: `chosen` from choose_sources(). With
/// `automatic` (spec "auto"), a source listed available that fails to start
/// (BPF not permitted after all, a kdamond slot taken meanwhile) yields to
/// the next available one in `probes` order, each failure appended to
/// `fallbacks`. Throws the last SourceError when none could start (named
/// sources: the first failure).
HeatReport collect_heat_with_fallback(const SysRoot& root, const Topology& topology,
                                      MemorySyscalls& syscalls, int pid,
                                      const std::vector<std::string>& chosen, bool automatic,
                                      const std::vector<SourceInfo>& probes, CollectOptions options,
                                      std::vector<Fallback>& fallbacks);

/// Node of every CPU id (index), -1 for CPUs no node lists.
std::vector<int> cpu_nodes(const Topology& topology);

}  // namespace tier::heat
