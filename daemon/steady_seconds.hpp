// The loop's steady clock in seconds (a clock step cannot bend what is timed
// with it): first evidence, residency scans. And the calling thread's CPU
// time: what a worker's job cost, whether or not the thread waited for a CPU
// meanwhile (a busy machine stretches wall time, not the cost).
#pragma once

#include <time.h>

#include <chrono>

namespace tierd {

inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double thread_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace tierd
