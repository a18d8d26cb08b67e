// The recorded-trace file: a line-oriented text format (docs/simulator.md,
// "Trace file") that generators write and `tierctl heat --record` records from
// the samplers, so a trace replays the same from a file as from memory (write
// then read gives an equal Trace; shared distributions stay shared).
//
//   tier-trace 1
//   page_bytes 4096
//   epoch_s 1
//   description free text to the end of the line
//   workload <id> <pid> <class> <priority>
//   map <workload index> <start, hex> <pages>
//   epoch <index>
//   alloc <pages of workload 0> <pages of workload 1> ...      (optional)
//   truth same                                  (the previous epoch's truth)
//   t <workload index> <first page> <pages> <p per page>       (truth runs)
//   s <pid> <address, hex> <count> [<length>]                   (samples)
//
// Blank lines and lines starting with '#' are ignored. Probabilities are
// written in the shortest form that reads back to the same double.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <stdexcept>

#include "tier/sim/trace.hpp"

namespace tier::sim {

/// A file that is not a trace; what() names the line.
struct TraceFormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Streams a trace epoch by epoch (what `tierctl heat --record` uses).
class TraceWriter {
 public:
  /// Writes the header: page size, epoch length, description, workloads.
  /// Throws std::invalid_argument for an id with whitespace.
  TraceWriter(std::ostream& out, const Trace& header);
  void epoch(const TraceEpoch& epoch);

 private:
  std::ostream& out_;
  std::size_t index_ = 0;
  std::shared_ptr<const Distribution> previous_truth_;
};

void write_trace(std::ostream& out, const Trace& trace);
void write_trace(const std::filesystem::path& path, const Trace& trace);
/// Reads and validate()s a trace. Throws TraceFormatError (with the line
/// number) for bad syntax and std::invalid_argument for an inconsistent trace.
Trace read_trace(std::istream& in);
Trace read_trace(const std::filesystem::path& path);

}  // namespace tier::sim
