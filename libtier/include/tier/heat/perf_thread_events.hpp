// One sampling perf event per thread of each tracked process, each with its
// own mmap'd ring; the machinery both perf sources ("perf-fault", "pmu") share.
//
// Contract:
//  - open() lists /proc/PID/task (through the SysRoot) and opens `attr` on
//    every thread with inherit + inherit_thread, so threads created later are
//    sampled into their creator's ring and forked children are not. Threads
//    that vanish between the listing and the open are skipped; a process
//    with no thread left, or a permission/kernel error, throws SourceError
//    and closes everything opened so far.
//  - drain() reads every ring once (PerfRingReader) and feeds the records to
//    the decoder, calling on_sample for each sample.
//  - A process has exited when every one of its events reports POLLHUP: the
//    kernel's word that the task and all threads inheriting from it are gone.
//    Rings stay mapped after that, so a final drain() still gets the last
//    samples.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tier/heat/perf_records.hpp"
#include "tier/sysroot.hpp"

namespace tier::heat::perf {

/// perf_event_open(attr) on this thread and close at once. Returns the reason
/// it fails (with perf_event_paranoid when it is a permission problem), or an
/// empty string when it opens.
std::string probe_perf_event_open(const perf_event_attr& attr, const char* what,
                                  const SysRoot& root);

class ThreadEventSet {
 public:
  ThreadEventSet(const perf_event_attr& attr, std::size_t ring_bytes, const SysRoot& root);
  ~ThreadEventSet();
  ThreadEventSet(const ThreadEventSet&) = delete;
  ThreadEventSet& operator=(const ThreadEventSet&) = delete;

  void open(const std::vector<pid_t>& pids);
  void drain(PerfRecordDecoder& decoder, const std::function<void(const PerfSample&)>& on_sample);
  /// Tracked processes whose events have all hung up, in the order given to open().
  std::vector<pid_t> exited_processes();
  std::size_t tracked_processes() const { return pids_.size(); }
  /// Records the ring readers could not frame (a corrupt ring), summed.
  std::uint64_t corrupt_records() const;
  void close() noexcept;

 private:
  struct Ring;
  perf_event_attr attr_;
  std::size_t data_bytes_;
  const SysRoot& root_;
  std::vector<pid_t> pids_;
  std::vector<std::unique_ptr<Ring>> rings_;
};

}  // namespace tier::heat::perf
