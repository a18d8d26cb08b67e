// The life of a suite workload's measured part, the same for every program:
// placed data → ready line (stdout, --ready-file) → wait for --start-file →
// run for --duration or until SIGTERM/SIGINT, with a tick every
// --report-ms → workers stop → the program verifies its data and prints
// the final line (report.hpp).
//
// Construct RunControl before starting any thread: it blocks SIGTERM and
// SIGINT in the calling thread, threads created afterwards inherit that, and
// the signals are then taken only by sigtimedwait here (no handler, no
// async-signal-safety questions).
#pragma once

#include <signal.h>
#include <atomic>
#include <functional>
#include <string>

#include "suite_options.hpp"

namespace tier_workloads {

class RunControl {
 public:
  RunControl();
  /// Prints `ready_json` as a line on stdout and creates --ready-file.
  /// False (with a message on stderr) when the file cannot be created.
  bool ready(const SuiteOptions& o, const std::string& ready_json);
  /// Waits until --start-file exists (at once without one). False when a
  /// signal came first: the program then exits without a measured part.
  bool wait_start(const SuiteOptions& o);
  /// The measured part: calls tick(t_s) every --report-ms (t_s: seconds
  /// since it began) until --duration has passed or a signal came, then
  /// sets stopping() and returns the seconds measured. Workers poll
  /// stopping() every few thousand operations.
  double run(const SuiteOptions& o, const std::function<void(double)>& tick);
  const std::atomic<bool>& stopping() const { return stopping_; }
  /// Ends the measured part early, from any thread (a worker that lost its
  /// peer): a process-directed SIGTERM, which every thread blocks and only
  /// run() or wait_start() take, so they return at once; sent after run()
  /// it stays pending and is never delivered.
  static void stop();

 private:
  sigset_t signals_;
  std::atomic<bool> stopping_{false};
};

/// Seconds on the monotonic clock.
double monotonic_s();

}  // namespace tier_workloads
