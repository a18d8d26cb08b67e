#include "classic_tracepoint.hpp"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace tier::heat::bpf {

namespace {

constexpr const char* kTracefsDirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

long read_id(const std::string& tracefs, const std::string& category, const std::string& name) {
  std::ifstream in(tracefs + "/events/" + category + "/" + name + "/id");
  long id = -1;
  if (!(in >> id)) return -1;
  return id;
}

// Runs in the forked child: private mount namespace, tracefs, id. Returns the
// id or -errno; never touches the parent's (the host's) mounts.
long id_in_private_mount(const std::string& category, const std::string& name) {
  if (unshare(CLONE_NEWNS) != 0) return -errno;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return -errno;
  if (mount("tracefs", kTracefsDirs[0], "tracefs", 0, nullptr) != 0) return -errno;
  long id = read_id(kTracefsDirs[0], category, name);
  return id >= 0 ? id : -ENOENT;
}

// "<step>: <strerror>", the text these failures have always carried.
posix::Failure failed(const std::string& step, int error) {
  return {error, step + ": " + std::strerror(error)};
}

}  // namespace

posix::Result<long> tracepoint_id(const std::string& category, const std::string& name) {
  for (const char* dir : kTracefsDirs) {
    if (long id = read_id(dir, category, name); id >= 0) return id;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return failed("pipe", errno);
  pid_t child = fork();
  if (child < 0) {
    int saved = errno;
    close(fds[0]);
    close(fds[1]);
    return failed("fork", saved);
  }
  if (child == 0) {
    long id = id_in_private_mount(category, name);
    ssize_t written = write(fds[1], &id, sizeof id);
    _exit(written == static_cast<ssize_t>(sizeof id) ? 0 : 1);
  }
  close(fds[1]);
  long id = -EIO;
  ssize_t got = 0;
  do {
    got = read(fds[0], &id, sizeof id);
  } while (got < 0 && errno == EINTR);
  close(fds[0]);
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (got != static_cast<ssize_t>(sizeof id)) id = -EIO;
  if (id < 0) {
    return failed("event id of " + category + ":" + name + " from a private tracefs mount",
                  static_cast<int>(-id));
  }
  return id;
}

posix::Result<bpf_link*> attach_classic_tracepoint(bpf_program* program,
                                                   const std::string& category,
                                                   const std::string& name) {
  posix::Result<long> event = tracepoint_id(category, name);
  if (!event) return event.failure();
  const long id = event.value();
  perf_event_attr attr{};
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.size = sizeof attr;
  attr.config = static_cast<__u64>(id);
  attr.sample_period = 1;
  attr.wakeup_events = 1;
  // pid -1 on one CPU is how libbpf opens it too: a BPF program attached to
  // a tracepoint event runs wherever the tracepoint fires.
  long fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return failed("perf_event_open(tracepoint " + std::to_string(id) + ")", errno);
  bpf_link* link = bpf_program__attach_perf_event(program, static_cast<int>(fd));
  if (link == nullptr) {
    int saved = errno;
    close(static_cast<int>(fd));
    return failed("attach to perf event", saved);
  }
  return link;  // owns fd from here on: bpf_link__destroy closes it
}

}  // namespace tier::heat::bpf
