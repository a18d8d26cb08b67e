// Sampling perf events on every thread of the tracked processes, one per
// (thread, online CPU), with one mmap'd ring per CPU; the machinery both perf
// sources ("perf-fault", "pmu") share.
//
// Why per CPU: the kernel refuses to mmap an inherited per-task event opened
// on "any CPU" (perf_mmap: EINVAL for inherit with cpu == -1), and inherit is
// what samples threads created after start(). Per-CPU events of different
// threads can share a ring (PERF_EVENT_IOC_SET_OUTPUT requires the same CPU),
// so the memory is one ring per CPU, not per thread - as `perf record` does.
//
// Contract:
//  - open() lists /proc/PID/task and /sys/devices/system/cpu/online (through
//    the SysRoot) and opens `attr` with inherit + inherit_thread on every
//    (thread, CPU): threads created later sample into their creator's events,
//    forked children do not. Threads that vanish between the listing and the
//    open are skipped; a process with no thread left, or a permission/kernel
//    error, throws SourceError and closes everything opened so far.
//  - drain() reads every ring once (PerfRingReader) and feeds the records to
//    the decoder, calling on_sample for each sample; samples come grouped by
//    CPU, each group in time order.
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
#include "tier/posix/sysroot.hpp"

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
  struct Event {
    pid_t pid = 0;
    int fd = -1;
    bool hung_up = false;
  };
  void open_thread(pid_t pid, pid_t tid, std::size_t& opened);
  int ring_fd_for(unsigned cpu, int fd);

  std::vector<unsigned> cpus_;
  std::vector<pid_t> pids_;
  std::vector<Event> events_;
  std::vector<std::unique_ptr<Ring>> rings_;  // one per CPU that has events
};

}  // namespace tier::heat::perf
