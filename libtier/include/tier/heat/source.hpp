// HeatSource: the interface every access-sampling mechanism implements.
//
// Contract:
//  - start(pids) begins watching those thread-group ids; it throws
//    SourceError with a reason a user can act on ("BPF not permitted: run as
//    root", "kdamond slot busy: 1 kdamond exists, not tier's") and leaves
//    nothing behind when it does.
//  - poll(out) appends the samples gathered since the last poll and never
//    blocks for long (epoch-based sources such as DAMON and soft-dirty do
//    their per-epoch read here, so the caller's poll interval is the epoch).
//    It returns PollResult::active == false once nothing is left to watch (all
//    tracked processes exited, kdamond stopped), with the reason.
//  - counters() are cumulative since start: samples delivered, drops (ring or
//    perf buffer overflow, sampling filters that lost data) - never silent.
//  - retarget(pids) changes the watched processes of a started source in
//    place, keeping what it set up (one BPF program, one ring), and returns
//    true; a source that cannot (DAMON's targets, per-thread perf events)
//    returns false and the caller restarts it. A pid that is already gone is
//    dropped as in poll(), never an error.
//  - stop() undoes every kernel change start() made (detaches programs,
//    turns off and removes the kdamond it created, ...); idempotent, noexcept,
//    also run by the destructor.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tier/heat/sample.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::heat {

class SourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SourceAvailability {
  bool available = false;
  std::string reason;  // why not; or, when available, what it will use ("tp_btf/page_fault_user")
};

struct SourceCounters {
  std::uint64_t samples = 0;  // delivered to poll()
  std::uint64_t drops = 0;    // lost before delivery (ring full, perf LOST records, ...)
  std::uint64_t polls = 0;
};

struct PollResult {
  bool active = true;
  std::string stopped_reason;  // set when active == false ("process 123 exited")
};

/// Knobs shared by the sources; each uses what applies to it.
struct SourceOptions {
  std::uint32_t sample_every = 1;                 // keep 1 in N events (fault sources), 1 = all
  std::chrono::milliseconds interval{1000};       // epoch (soft-dirty/idle), DAMON aggregation
  std::size_t ring_bytes = std::size_t{4} << 20;  // ringbuf / perf ring size
  std::vector<int> cpu_node;                      // node of each CPU id (-1 unknown), for run time
  const SysRoot* root = nullptr;  // /proc and /sys reads (fixtures); null = live "/"
};

class HeatSource {
 public:
  virtual ~HeatSource() = default;
  virtual std::string_view name() const = 0;
  virtual void start(const std::vector<pid_t>& pids) = 0;
  virtual PollResult poll(std::vector<AccessSample>& out) = 0;
  virtual bool retarget(const std::vector<pid_t>& pids) {
    (void)pids;
    return false;
  }
  virtual SourceCounters counters() const = 0;
  virtual void stop() noexcept = 0;
};

}  // namespace tier::heat
