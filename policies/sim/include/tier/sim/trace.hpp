// Access traces for the simulator (docs/simulator.md).
//
// A trace is a sequence of epochs over a fixed set of workloads. Each epoch
// holds what a sampler would have produced (sampled accesses: pid, address,
// count, as tierd's heat sources report them) and, when known, the TRUE access
// distribution over pages for that epoch: the probability that one access of
// the epoch hits each page. Generators know the truth exactly; a trace
// recorded from tierd's samplers has none, and the simulator then uses the
// samples' own empirical distribution (see empirical_distribution()).
//
// Pages are numbered per workload: a workload's mappings are concatenated in
// the order listed, page 0 being the first page of the first mapping. Pages
// are first touched in that order (`allocated` below), which is what makes the
// simulator's initial placement well defined.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tier/protocol/workload_class.hpp"

namespace tier::sim {

/// One sampled access (or `count` of them) as a sampler reports it.
struct TraceSample {
  std::uint64_t addr = 0;
  std::uint64_t length = 0;  // bytes covered; 0 = the one page holding addr (region samples: DAMON)
  std::uint32_t pid = 0;
  std::uint32_t count = 1;  // accesses this sample stands for
  bool operator==(const TraceSample&) const = default;
};

/// [start, start + pages x page_bytes) of the workload's address space.
struct Mapping {
  std::uint64_t start = 0;  // page aligned
  std::uint64_t pages = 0;
  bool operator==(const Mapping&) const = default;
};

struct TraceWorkload {
  std::string id;
  std::uint32_t pid = 0;
  WorkloadClass workload_class = WorkloadClass::normal;  // "default" in a trace file
  int priority = 0;
  std::vector<Mapping> mappings;
  std::uint64_t pages() const;
  bool operator==(const TraceWorkload&) const = default;
};

/// `count` consecutive pages of one workload, each hit with probability `p`.
struct PageRun {
  std::uint32_t workload = 0;  // index into Trace::workloads
  std::uint64_t first = 0;     // workload page index
  std::uint64_t count = 0;
  double p = 0;  // per page
  bool operator==(const PageRun&) const = default;
};

/// A probability distribution over pages: runs sorted by (workload, first),
/// not overlapping, probabilities summing to 1 (validate() checks within 1e-6).
/// Pages not covered have probability 0.
struct Distribution {
  std::vector<PageRun> runs;
  double total() const;
  bool operator==(const Distribution&) const = default;
};

struct TraceEpoch {
  std::vector<TraceSample> samples;
  /// The true distribution; null when unknown (recorded traces). Epochs with
  /// the same distribution share one object (a Zipf trace has one).
  std::shared_ptr<const Distribution> truth;
  /// Pages allocated (first touched) per workload by this epoch, non-decreasing
  /// over epochs; empty = every page of every workload from epoch 0 on.
  std::vector<std::uint64_t> allocated;
};

struct Trace {
  std::uint64_t page_bytes = 4096;  // a power of two: the simulator's page (region) size
  double epoch_s = 1;               // seconds per epoch (the snapshot clock's tick)
  std::string description;          // one line, free text (the generator and its parameters)
  std::vector<TraceWorkload> workloads;
  std::vector<TraceEpoch> epochs;

  /// Pages allocated to workload w at epoch e (honours an empty `allocated`).
  std::uint64_t allocated(std::size_t epoch, std::size_t workload) const;
  /// Index of the workload with this pid, or nullopt.
  std::optional<std::size_t> workload_of_pid(std::uint32_t pid) const;
  /// Workload page index of addr in workload w, or nullopt outside its mappings.
  std::optional<std::uint64_t> page_of(std::size_t workload, std::uint64_t addr) const;
  /// First address of workload page `page` (page < workloads[w].pages()).
  std::uint64_t address_of(std::size_t workload, std::uint64_t page) const;
};

/// Throws std::invalid_argument naming the first inconsistency: page size not a
/// power of two, duplicate pids, overlapping or unaligned mappings, `allocated`
/// of the wrong size / decreasing / beyond a workload, truth runs unsorted,
/// out of range, negative, or not summing to 1.
void validate(const Trace& trace);

/// The samples' own distribution over pages (counts normalised; a region
/// sample spreads its count evenly over the pages it covers). Samples outside
/// every workload's mappings are ignored. Empty runs when nothing maps.
Distribution empirical_distribution(const Trace& trace, const std::vector<TraceSample>& samples);

}  // namespace tier::sim
