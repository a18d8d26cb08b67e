// The wall clock tierd records in its state file, status and registry
// (seconds since the epoch: what `tierctl status` prints as dates and what
// survives a restart, unlike the loop's steady clock).
#pragma once

#include <cstdint>
#include <ctime>

namespace tierd {

inline std::int64_t unix_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

}  // namespace tierd
