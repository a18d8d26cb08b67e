// Internal: the processes a per-process source still watches. A process that
// exits is dropped with a reason; the source stays active while any is left,
// so one exiting process of several never stops the others' sampling.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tier/heat/source.hpp"

namespace tier::heat::kernel {

class TrackedPids {
 public:
  void reset(const std::vector<pid_t>& pids) {
    alive_ = pids;
    reasons_.clear();
  }
  const std::vector<pid_t>& alive() const { return alive_; }
  bool contains(pid_t pid) const { return std::ranges::find(alive_, pid) != alive_.end(); }

  /// Drops `pid`; `why` says how it was noticed ("process 42 exited").
  void drop(pid_t pid, std::string why) {
    std::erase(alive_, pid);
    reasons_.push_back(std::move(why));
  }

  PollResult result() const {
    PollResult result;
    result.active = !alive_.empty();
    if (!result.active) {
      for (const std::string& reason : reasons_) {
        if (!result.stopped_reason.empty()) result.stopped_reason += "; ";
        result.stopped_reason += reason;
      }
      if (result.stopped_reason.empty()) result.stopped_reason = "no process to watch";
    }
    return result;
  }

 private:
  std::vector<pid_t> alive_;
  std::vector<std::string> reasons_;
};

}  // namespace tier::heat::kernel
