// The live BpfProber: loads ebpf/feature_probe.bpf.c through its skeleton with
// only the program under test autoloaded, attaches it, triggers its event and
// reads its hit counter.
//
// Each probe runs in a forked child: libbpf's print callback is process-wide,
// a failed attach may leave kernel objects behind until exit, and mounting
// tracefs (classic tracepoints and legacy kprobes need it for event ids) must
// happen in a private mount namespace so the probe never changes the host.
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "checks.hpp"
#include "feature_probe.skel.h"
#include "heat/bpf/libbpf_log.hpp"

namespace tier::doctor {

namespace {

bool tracefs_available() {
  return access("/sys/kernel/tracing/events", F_OK) == 0 ||
         access("/sys/kernel/debug/tracing/events", F_OK) == 0;
}

// Makes tracefs visible to this (child) process only.
int mount_private_tracefs() {
  if (unshare(CLONE_NEWNS) != 0) return errno;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, nullptr) != 0) return errno;
  return 0;
}

void trigger(BpfProgram program) {
  if (program == BpfProgram::kprobe) {
    for (int i = 0; i < 4; ++i) syscall(SYS_getpid);
    return;
  }
  // Fresh anonymous pages fault on first touch: page_fault_user fires.
  constexpr std::size_t kPages = 8;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* area =
      mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return;
  auto* bytes = static_cast<volatile char*>(area);
  for (std::size_t i = 0; i < kPages; ++i) bytes[i * page] = 1;
  munmap(area, kPages * page);
}

std::uint64_t read_hits(const feature_probe_bpf& skel, BpfProgram program) {
  // The kernel updates the mmap'ed .bss behind the compiler's back.
  const volatile auto* bss = skel.bss;
  switch (program) {
    case BpfProgram::tracepoint:
      return bss->tracepoint_hits;
    case BpfProgram::tp_btf:
      return bss->tp_btf_hits;
    case BpfProgram::kprobe:
      return bss->kprobe_hits;
  }
  return 0;
}

ProbeOutcome probe_here(BpfProgram program) {
  ProbeOutcome out;
  // libbpf's last warning goes into the report: it often names the real
  // cause (e.g. "failed to determine tracepoint ... perf_event_open").
  heat::bpf::LibbpfLog libbpf_log;
  if (program != BpfProgram::tp_btf && !tracefs_available()) {
    if (int error = mount_private_tracefs(); error != 0) {
      out.error = error;
      out.step = "mount tracefs (not mounted on the host)";
      return out;
    }
    out.message = "tracefs not mounted on the host: probed with a private tracefs mount";
  }
  feature_probe_bpf* skel = feature_probe_bpf__open();
  if (skel == nullptr) {
    out.error = errno;
    out.step = "open";
    return out;
  }
  bpf_program* target = nullptr;
  for (auto [prog, which] : {std::pair{skel->progs.probe_tracepoint, BpfProgram::tracepoint},
                             std::pair{skel->progs.probe_tp_btf, BpfProgram::tp_btf},
                             std::pair{skel->progs.probe_kprobe, BpfProgram::kprobe}}) {
    bpf_program__set_autoload(prog, which == program);
    if (which == program) target = prog;
  }
  bpf_link* link = nullptr;
  if (int err = feature_probe_bpf__load(skel); err != 0) {
    out.error = -err;
    out.step = "load";
  } else if (link = bpf_program__attach(target); link == nullptr) {
    out.error = errno;
    out.step = "attach";
  } else {
    trigger(program);
    out.step = "attach";
    out.events = read_hits(*skel, program);
  }
  if (const std::string warning = libbpf_log.last_warning(); !out.ok() && !warning.empty()) {
    out.message += std::string(out.message.empty() ? "" : "; ") + "libbpf: " + warning;
  }
  bpf_link__destroy(link);
  feature_probe_bpf__destroy(skel);
  return out;
}

// Fixed-size record the child sends back through a pipe.
struct Wire {
  int error;
  int has_events;
  std::uint64_t events;
  char step[64];
  char message[768];
};

void copy_text(char* dst, std::size_t size, const std::string& src) {
  std::snprintf(dst, size, "%s", src.c_str());
}

class LiveBpfProber final : public BpfProber {
 public:
  ProbeOutcome probe(BpfProgram program) override {
    ProbeOutcome out;
    out.step = "fork probe process";
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      out.error = errno;
      return out;
    }
    pid_t pid = fork();
    if (pid < 0) {
      out.error = errno;
      close(fds[0]);
      close(fds[1]);
      return out;
    }
    if (pid == 0) {
      close(fds[0]);
      ProbeOutcome result = probe_here(program);
      Wire wire{};
      wire.error = result.error;
      wire.has_events = result.events.has_value() ? 1 : 0;
      wire.events = result.events.value_or(0);
      copy_text(wire.step, sizeof wire.step, result.step);
      copy_text(wire.message, sizeof wire.message, result.message);
      ssize_t written = write(fds[1], &wire, sizeof wire);
      _exit(written == static_cast<ssize_t>(sizeof wire) ? 0 : 1);
    }
    close(fds[1]);
    Wire wire{};
    std::size_t got = 0;
    while (got < sizeof wire) {
      ssize_t n = read(fds[0], reinterpret_cast<char*>(&wire) + got, sizeof wire - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof wire) {
      out.error = ECHILD;
      out.step = "probe process";
      out.message = WIFSIGNALED(status)
                        ? "killed by signal " + std::to_string(WTERMSIG(status))
                        : "exited with status " + std::to_string(WEXITSTATUS(status));
      return out;
    }
    out.error = wire.error;
    out.step = wire.step;
    out.message = wire.message;
    if (wire.has_events != 0) out.events = wire.events;
    return out;
  }
};

}  // namespace

std::unique_ptr<BpfProber> make_live_bpf_prober() {
  return std::make_unique<LiveBpfProber>();
}

}  // namespace tier::doctor
