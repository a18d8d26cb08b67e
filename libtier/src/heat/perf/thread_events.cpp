// Per-(thread, CPU) perf events sharing one mmap'd ring per CPU (contract and
// the reason for the layout in perf_thread_events.hpp).
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "tier/cpu/cpulist.hpp"
#include "tier/heat/perf_ring.hpp"
#include "tier/heat/perf_thread_events.hpp"
#include "tier/heat/source.hpp"

namespace tier::heat::perf {

namespace {

long perf_event_open(const perf_event_attr& attr, pid_t tid, int cpu) {
  return syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

std::size_t page_bytes() {
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// Largest power-of-two number of pages within `ring_bytes`, at least one.
std::size_t data_area_bytes(std::size_t ring_bytes) {
  std::size_t pages = std::max<std::size_t>(ring_bytes / page_bytes(), 1);
  std::size_t pow2 = 1;
  while (pow2 * 2 <= pages) pow2 *= 2;
  return pow2 * page_bytes();
}

std::string open_failure(int error, const char* what, const SysRoot& root) {
  std::string text = std::string(what) + ": " + std::strerror(error);
  if (error == EACCES || error == EPERM) {
    if (auto paranoid = root.read_int("/proc/sys/kernel/perf_event_paranoid")) {
      text += " (kernel.perf_event_paranoid=" + std::to_string(*paranoid) +
              "; run as root or lower it)";
    } else {
      text += " (run as root)";
    }
  } else if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV) {
    text += " (the kernel or this PMU has no such event)";
  } else if (error == ENOSYS) {
    text += " (kernel built without CONFIG_PERF_EVENTS)";
  }
  return text;
}

}  // namespace

std::string probe_perf_event_open(const perf_event_attr& attr, const char* what,
                                  const SysRoot& root) {
  perf_event_attr probe = attr;
  probe.disabled = 1;  // never counts anything
  long fd = perf_event_open(probe, 0, -1);
  if (fd < 0) return open_failure(errno, what, root);
  ::close(static_cast<int>(fd));
  return {};
}

struct ThreadEventSet::Ring {
  unsigned cpu = 0;
  int fd = -1;  // the event whose mapping this is (closed with the events)
  void* map = MAP_FAILED;
  std::size_t map_bytes = 0;
  std::unique_ptr<PerfRingReader> reader;

  ~Ring() {
    if (map != MAP_FAILED) munmap(map, map_bytes);
  }
};

ThreadEventSet::ThreadEventSet(const perf_event_attr& attr, std::size_t ring_bytes,
                               const SysRoot& root)
    : attr_(attr), data_bytes_(data_area_bytes(ring_bytes)), root_(root) {
  attr_.size = sizeof attr_;
  attr_.inherit = 1;
  attr_.inherit_thread = 1;  // threads, not forked children
  attr_.disabled = 0;
}

ThreadEventSet::~ThreadEventSet() {
  close();
}

int ThreadEventSet::ring_fd_for(unsigned cpu, int fd) {
  for (const auto& ring : rings_) {
    if (ring->cpu == cpu) return ring->fd;
  }
  auto ring = std::make_unique<Ring>();
  ring->cpu = cpu;
  ring->fd = fd;
  ring->map_bytes = page_bytes() + data_bytes_;
  ring->map = mmap(nullptr, ring->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ring->map == MAP_FAILED) {
    throw SourceError("mmap of a " + std::to_string(ring->map_bytes) + "-byte perf ring for CPU " +
                      std::to_string(cpu) + ": " + std::strerror(errno) +
                      (errno == EPERM ? " (over kernel.perf_event_mlock_kb; run as root)" : ""));
  }
  auto* base = static_cast<std::uint8_t*>(ring->map);
  ring->reader = std::make_unique<PerfRingReader>(static_cast<perf_event_mmap_page*>(ring->map),
                                                  base + page_bytes(), data_bytes_);
  rings_.push_back(std::move(ring));
  return fd;
}

void ThreadEventSet::open_thread(pid_t pid, pid_t tid, std::size_t& opened) {
  for (unsigned cpu : cpus_) {
    long fd = perf_event_open(attr_, tid, static_cast<int>(cpu));
    if (fd < 0 && errno == ESRCH) return;  // the thread ended since the listing
    if (fd < 0) {
      throw SourceError(open_failure(errno, "perf_event_open", root_) + " for thread " +
                        std::to_string(tid) + " of process " + std::to_string(pid) + " on CPU " +
                        std::to_string(cpu));
    }
    events_.push_back(Event{pid, static_cast<int>(fd), false});
    int ring_fd = ring_fd_for(cpu, static_cast<int>(fd));
    if (ring_fd != fd && ioctl(static_cast<int>(fd), PERF_EVENT_IOC_SET_OUTPUT, ring_fd) != 0) {
      throw SourceError("PERF_EVENT_IOC_SET_OUTPUT to the CPU " + std::to_string(cpu) +
                        " ring: " + std::strerror(errno));
    }
  }
  ++opened;
}

void ThreadEventSet::open(const std::vector<pid_t>& pids) {
  try {
    auto online = root_.read("/sys/devices/system/cpu/online");
    auto cpus = online ? CpuList::parse(*online) : std::nullopt;
    if (!cpus || cpus->empty()) {
      throw SourceError("cannot read the online CPUs from " +
                        root_.path("/sys/devices/system/cpu/online").string());
    }
    cpus_ = cpus->ids();
    for (pid_t pid : pids) {
      std::vector<std::string> tasks = root_.list("/proc/" + std::to_string(pid) + "/task");
      if (tasks.empty()) throw SourceError("process " + std::to_string(pid) + " not found");
      std::size_t opened = 0;
      for (const auto& task : tasks) open_thread(pid, static_cast<pid_t>(std::stol(task)), opened);
      if (opened == 0) throw SourceError("process " + std::to_string(pid) + " exited");
      pids_.push_back(pid);
    }
  } catch (...) {
    close();
    throw;
  }
}

void ThreadEventSet::drain(PerfRecordDecoder& decoder,
                           const std::function<void(const PerfSample&)>& on_sample) {
  for (auto& ring : rings_) {
    ring->reader->drain([&](std::span<const std::uint8_t> record) {
      if (auto sample = decoder.decode(record)) on_sample(*sample);
    });
  }
}

std::vector<pid_t> ThreadEventSet::exited_processes() {
  for (auto& event : events_) {
    if (event.hung_up) continue;  // sticky: a hung-up event never comes back
    pollfd p{event.fd, POLLIN, 0};
    event.hung_up = ::poll(&p, 1, 0) > 0 && (p.revents & POLLHUP) != 0;
  }
  std::vector<pid_t> exited;
  for (pid_t pid : pids_) {
    bool all_hung_up = std::all_of(events_.begin(), events_.end(),
                                   [pid](const Event& e) { return e.pid != pid || e.hung_up; });
    if (all_hung_up) exited.push_back(pid);
  }
  return exited;
}

std::uint64_t ThreadEventSet::corrupt_records() const {
  std::uint64_t sum = 0;
  for (const auto& ring : rings_) sum += ring->reader->corrupt();
  return sum;
}

void ThreadEventSet::close() noexcept {
  rings_.clear();  // unmap before the fds go
  for (const auto& event : events_) ::close(event.fd);
  events_.clear();
  pids_.clear();
}

}  // namespace tier::heat::perf
