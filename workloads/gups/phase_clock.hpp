// --phase-shift's clock: from the start of the measured run, the phase goes
// up by one every period until the run stops, so every worker reads the same
// phase (and the same hot subset) at any moment. A separate thread, because
// RunControl's tick comes every --report-ms, not every --phase-shift.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace tier_workloads::gups {

class PhaseClock {
 public:
  /// period_s 0: the phase stays 0 (no thread). The phase stops moving once
  /// `stopping` is set or the clock is destroyed (a run that never began).
  PhaseClock(double period_s, const std::atomic<bool>& stopping);
  ~PhaseClock();
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  const std::atomic<std::uint64_t>& phase() const { return phase_; }

 private:
  std::atomic<std::uint64_t> phase_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace tier_workloads::gups
