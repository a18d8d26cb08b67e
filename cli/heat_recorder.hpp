// `tierctl heat --record FILE`: what a heat source samples from a process,
// written as a simulator trace (docs/simulator.md, "Recording a trace") that
// `tier-sim --trace FILE` replays.
//
// Contract: TraceRecorder writes a `tier-trace 1` header at construction (4 KiB
// pages, epoch_s = the collection interval, one workload `pid:P` of class
// default, one `map` per mapping the collector tracks when the recording
// starts) and then one `epoch` per collection epoch, fed through add() (the
// CollectOptions::on_epoch hook). No truth lines: the simulator scores a
// recorded trace against each epoch's own samples. Within an epoch, samples
// with the same page (or the same region: address and length) become one `s`
// line with the summed count; a base-page sample's address is written page
// aligned. A sample that overlaps no declared mapping (a mapping made after
// the start, stack growth) is left out and counted. add() never throws: a
// write failure stops the recording and is reported by finish().
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tier/heat/heatmap.hpp"
#include "tier/heat/sample.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::sim {
class TraceWriter;
}

namespace tierctl {

/// The trace file cannot be created or written; what() names the path.
struct RecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RecordHeader {
  int pid = 0;
  std::string source;   // the heat source(s) chosen, e.g. "perf-fault"
  std::string command;  // the process's command line, one line
  std::string date;     // when the recording started (UTC, ISO 8601)
  std::chrono::milliseconds interval{1000};
  std::vector<tier::heat::AddressRange> mappings;  // page aligned, sorted, not overlapping
};

struct RecordSummary {
  std::string file;
  std::uint64_t epochs = 0;            // epochs written
  std::uint64_t samples = 0;           // source samples written (before aggregation)
  std::uint64_t lines = 0;             // `s` lines written (after aggregation)
  std::uint64_t outside_mappings = 0;  // source samples left out
  std::string error;                   // a write failure; empty when the file is complete
};

/// The ranges collect_heat() tracks: /proc/PID/maps less skip_mapping() and
/// sparse_mapping() (empty when the process is gone).
std::vector<tier::heat::AddressRange> recordable_ranges(const tier::SysRoot& root, int pid);

/// /proc/PID/cmdline with the arguments separated by spaces and control
/// characters replaced ("" when unreadable).
std::string process_command_line(const tier::SysRoot& root, int pid);

/// Now, as "2025-01-31T12:00:00Z".
std::string utc_now();

class TraceRecorder {
 public:
  /// Creates `path` and writes the header. Throws RecordError ("cannot write
  /// trace file PATH: reason") when the file cannot be created.
  TraceRecorder(std::filesystem::path path, const RecordHeader& header);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  /// The samples of one poll of epoch `epoch` (CollectOptions::on_epoch).
  /// Polls of the same epoch are merged; an epoch is written once a later one
  /// has begun and ended (so finish() can still fold a partial one into it);
  /// an index skipped is written as an empty epoch.
  void add(const std::vector<tier::heat::AccessSample>& samples, std::uint64_t epoch) noexcept;

  /// Writes what is buffered and the trailing `#` lines (`note`, e.g. the
  /// source that ran, then the count of samples left out) and closes the
  /// file. An epoch with index `completed_epochs` or more was cut short by the
  /// end of the run (the last drain, the process exiting, Ctrl-C): it is
  /// folded into the epoch before it, or written on its own when it is the
  /// only one and has samples.
  RecordSummary finish(std::uint64_t completed_epochs, std::string_view note);

  /// Removes the file when it is a regular file (collection never started).
  void discard() noexcept;

 private:
  struct Epoch {
    std::uint64_t index = 0;  // as the collector numbers epochs
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> counts;  // (addr, length)
    std::uint64_t samples = 0;
  };
  void write(const Epoch& epoch);
  void fail(const std::string& what) noexcept;

  std::filesystem::path path_;
  std::uint32_t pid_ = 0;
  std::vector<tier::heat::AddressRange> mappings_;
  std::ofstream out_;
  std::unique_ptr<tier::sim::TraceWriter> writer_;
  std::optional<Epoch> previous_, current_;
  RecordSummary summary_;
};

}  // namespace tierctl
