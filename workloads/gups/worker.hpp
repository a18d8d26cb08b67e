// One tier-gups worker: its update stream (update.hpp) and, for the replay,
// how many updates it did in each phase. The measured run calls run(); a
// test drives update() directly with chosen phases and counts.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "update.hpp"

namespace tier_workloads::gups {

class Worker {
 public:
  /// Updates between two looks at the stop flag and the phase.
  static constexpr std::uint64_t kChunk = 1024;

  Worker(const Layout& layout, unsigned index, std::uint64_t seed);

  /// `n` updates in `phase`, counted for the replay. Phases only move
  /// forward (an earlier one throws std::logic_error); skipped phases count
  /// zero updates.
  void update(std::uint64_t* table, std::uint64_t phase, std::uint64_t n);
  /// kChunk updates at a time in the current `phase` until `stopping`.
  void run(std::uint64_t* table, const std::atomic<bool>& stopping,
           const std::atomic<std::uint64_t>& phase);
  /// The same updates again from the stream's start, phase by phase: the
  /// XORs cancel, the worker's words return to what they were before.
  void replay(std::uint64_t* table) const;

  /// Updates done so far (published after each update() for the interval
  /// lines; read from any thread).
  std::uint64_t updates() const { return published_.load(std::memory_order_relaxed); }
  /// Updates per phase, phase 0 first.
  const std::vector<std::uint64_t>& phase_updates() const { return per_phase_; }

 private:
  Layout layout_;
  unsigned index_;
  std::uint64_t stream_;  // the Rng's start, for the replay
  Rng rng_;
  std::uint64_t phase_ = 0;
  Picker picker_;
  std::vector<std::uint64_t> per_phase_{0};
  std::uint64_t total_ = 0;
  // Its own cache line: the reporting thread reads it while the worker runs.
  alignas(64) std::atomic<std::uint64_t> published_{0};
};

}  // namespace tier_workloads::gups
