// The loop's steady clock in seconds (a clock step cannot bend what is timed
// with it): first evidence, residency scans.
#pragma once

#include <chrono>

namespace tierd {

inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace tierd
