// A fake /proc and cgroup tree for the workload registry tests: processes
// (stat, comm, exe link) and cgroup directories written into a TempDir that
// a tier::SysRoot then reads.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "test_support.hpp"
#include "tier/posix/sysroot.hpp"
#include "workloads/registry.hpp"

namespace tier::test {

inline constexpr std::uint64_t kKernelThreadFlags = 0x00208040;  // kthreadd's, PF_KTHREAD set
inline constexpr std::uint64_t kUserFlags = 0x00400100;          // a user process's

/// One fake process, built fluently: proc(100).named("redis").started(5000).
struct FakeProcess {
  pid_t pid = 0;
  std::string comm = "app";
  char state = 'S';
  std::uint64_t flags = kUserFlags;
  std::uint64_t start_time = 1000;
  std::string exe;               // target of proc/PID/exe; none when empty
  pid_t tgid = 0;                // status Tgid: 0 = the pid itself (a process, not a thread)
  std::uint64_t anon_pages = 0;  // statm: resident - shared (4 KiB pages)
  int nice = 0;                  // stat field 19
  unsigned policy = 0;           // stat field 41
  std::string cgroup;  // /proc/PID/cgroup's v2 path ("/system.slice/a.service"); none when empty

  FakeProcess& anon_mib(std::uint64_t mib) {
    anon_pages = mib * 256;
    return *this;
  }
  FakeProcess& niced(int n) {
    nice = n;
    return *this;
  }
  FakeProcess& scheduled(unsigned p) {
    policy = p;
    return *this;
  }
  FakeProcess& in_cgroup(std::string path) {
    cgroup = std::move(path);
    return *this;
  }

  FakeProcess& thread_of(pid_t process) {
    tgid = process;
    return *this;
  }
  FakeProcess& named(std::string name) {
    comm = std::move(name);
    return *this;
  }
  FakeProcess& started(std::uint64_t ticks) {
    start_time = ticks;
    return *this;
  }
  FakeProcess& in_state(char s) {
    state = s;
    return *this;
  }
  FakeProcess& kernel_thread() {
    flags = kKernelThreadFlags;
    return *this;
  }
  FakeProcess& with_flags(std::uint64_t f) {
    flags = f;
    return *this;
  }
  FakeProcess& running(std::string target) {
    exe = std::move(target);
    return *this;
  }
};

inline FakeProcess proc(pid_t pid) {
  FakeProcess p;
  p.pid = pid;
  return p;
}

/// Configured rules and watches without designated initializers (GCC 12's
/// -Wmissing-field-initializers flags every member left out).
inline tierd::ProcessRule rule(std::string match,
                               tierd::WorkloadClass c = tierd::WorkloadClass::normal,
                               int priority = 0, std::string pool = "shared",
                               std::string_view quota = "") {
  tierd::ProcessRule r;
  r.match = std::move(match);
  r.workload_class = c;
  r.priority = priority;
  r.pool = std::move(pool);
  r.quota = tierd::parse_quota(quota);
  return r;
}

inline tierd::CgroupWatch watch(std::string parent,
                                tierd::WorkloadClass c = tierd::WorkloadClass::normal,
                                int priority = 0, std::string pool = "shared",
                                std::string_view quota = "") {
  tierd::CgroupWatch w;
  w.parent = std::move(parent);
  w.workload_class = c;
  w.priority = priority;
  w.pool = std::move(pool);
  w.quota = tierd::parse_quota(quota);
  return w;
}

class FakeSystem {
 public:
  FakeSystem() : dir_("tier-workloads") {}

  SysRoot root() const { return SysRoot(dir_.path()); }
  const fs::path& path() const { return dir_.path(); }
  /// Where an absolute kernel path lives in the tree.
  fs::path host(const std::string& kernel_path) const {
    return dir_.path() / fs::path(kernel_path).relative_path();
  }

  /// /proc/PID/stat as the kernel writes it (fields 1-41).
  static std::string stat_line(const FakeProcess& p) {
    return std::to_string(p.pid) + " (" + p.comm + ") " + p.state + " 1 1 1 0 -1 " +
           std::to_string(p.flags) + " 10 0 0 0 5 3 0 0 20 " + std::to_string(p.nice) + " 1 0 " +
           std::to_string(p.start_time) + " 1234567 89" +
           " 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 " + std::to_string(p.policy) +
           "\n";
  }

  void add_process(const FakeProcess& p) {
    fs::path dir = host("/proc/" + std::to_string(p.pid));
    write_text_file(dir / "stat", stat_line(p));
    write_text_file(dir / "comm", p.comm + "\n");
    write_text_file(dir / "status",
                    "Name:\t" + p.comm + "\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t" +
                        std::to_string(p.tgid != 0 ? p.tgid : p.pid) + "\nNgid:\t0\n");
    // statm: size resident shared text lib data dt (pages); 10 shared pages.
    write_text_file(dir / "statm", "4000 " + std::to_string(p.anon_pages + 10) + " 10 1 0 " +
                                       std::to_string(p.anon_pages) + " 0\n");
    std::error_code ec;
    fs::remove(dir / "cgroup", ec);
    if (!p.cgroup.empty()) write_text_file(dir / "cgroup", "0::" + p.cgroup + "\n");
    fs::remove(dir / "exe", ec);
    if (!p.exe.empty()) fs::create_symlink(p.exe, dir / "exe");
  }
  void remove_process(pid_t pid) { fs::remove_all(host("/proc/" + std::to_string(pid))); }

  /// A cgroup directory (with cgroup.procs listing `pids`); returns its kernel path.
  std::string add_cgroup(const std::string& kernel_path, const std::string& procs = "") {
    write_text_file(host(kernel_path) / "cgroup.procs", procs);
    write_text_file(host(kernel_path) / "memory.current", "0\n");
    return kernel_path;
  }
  void remove_cgroup(const std::string& kernel_path) { fs::remove_all(host(kernel_path)); }
  /// Any control file of a cgroup ("memory.stat", "cpu.weight", ...).
  void cgroup_file(const std::string& kernel_path, const std::string& file,
                   const std::string& text) {
    write_text_file(host(kernel_path) / file, text);
  }
  /// The cgroup v2 root: /sys/fs/cgroup/cgroup.controllers and cgroup.procs.
  void unified_root(const std::string& root_procs) {
    add_cgroup("/sys/fs/cgroup", root_procs);
    cgroup_file("/sys/fs/cgroup", "cgroup.controllers", "cpuset cpu io memory pids\n");
  }

 private:
  TempDir dir_;
};

}  // namespace tier::test
