#include "phase_clock.hpp"

#include <algorithm>
#include <chrono>

#include "run_control.hpp"

namespace tier_workloads::gups {

PhaseClock::PhaseClock(double period_s, const std::atomic<bool>& stopping) {
  if (period_s <= 0) return;
  thread_ = std::thread([this, period_s, &stopping] {
    const double start = monotonic_s();
    std::uint64_t p = 0;
    // Short sleeps: the run's end is a flag, not a wake-up.
    constexpr double kPoll = 0.02;
    while (!stopping.load(std::memory_order_relaxed) && !done_.load()) {
      const double due = start + static_cast<double>(p + 1) * period_s;
      const double now = monotonic_s();
      if (now >= due) {
        phase_.store(++p, std::memory_order_relaxed);
        continue;
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(due - now, kPoll)));
    }
  });
}

PhaseClock::~PhaseClock() {
  done_.store(true);
  if (thread_.joinable()) thread_.join();
}

}  // namespace tier_workloads::gups
