// Reading /proc/PID through a SysRoot: the stat fields the registry needs to
// tell a live process from an exited one, a kernel thread, or a reused pid.
// Internal to tierd_workloads.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tier/posix/sysroot.hpp"

namespace tierd::detail {

inline constexpr std::uint64_t kPfKthread = 0x00200000;  // PF_KTHREAD in stat field 9

struct ProcStat {
  std::string comm;              // field 2 without the parentheses
  char state = '?';              // field 3
  std::uint64_t flags = 0;       // field 9
  int nice = 0;                  // field 19, -20 (first) to 19 (last)
  std::uint64_t start_time = 0;  // field 22, clock ticks after boot
  unsigned policy = 0;  // field 41 (SCHED_OTHER 0, SCHED_BATCH 3, SCHED_IDLE 5), 0 if absent
  bool kernel_thread() const { return (flags & kPfKthread) != 0; }
  /// Zombie or dead: the process has exited, only its pid is left.
  bool exited() const { return state == 'Z' || state == 'X' || state == 'x'; }
};

/// Parses the text of /proc/PID/stat. comm may hold spaces and parentheses,
/// so the fields after it are taken from after the last ')'. nullopt when
/// the text is not a stat line.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

/// Reads and parses /proc/PID/stat; nullopt when the process is gone.
std::optional<ProcStat> read_proc_stat(const tier::SysRoot& root, pid_t pid);

/// The Tgid: line of /proc/PID/status (the process a thread id belongs to);
/// nullopt when unreadable.
std::optional<pid_t> read_tgid(const tier::SysRoot& root, pid_t pid);

/// Anonymous resident bytes of a process: (resident - shared) pages of
/// /proc/PID/statm (shared counts file and shmem pages) times `page_bytes`;
/// nullopt when the process is gone. Kernel threads have none (0).
std::optional<std::uint64_t> read_anon_bytes(const tier::SysRoot& root, pid_t pid,
                                             std::uint64_t page_bytes);

/// The process's cgroup v2 directory, absolute under /sys/fs/cgroup (the
/// "0::/path" line of /proc/PID/cgroup; "/sys/fs/cgroup" for the root);
/// nullopt when it has none (cgroup v1 only) or is gone.
std::optional<std::string> read_cgroup_v2(const tier::SysRoot& root, pid_t pid);

/// "/proc/PID/..." for the given file name ("" for the directory).
std::string proc_path(pid_t pid, std::string_view file);

/// Basename of /proc/PID/exe's target (" (deleted)" removed); nullopt when
/// the link is unreadable (kernel threads, other users' processes).
std::optional<std::string> exe_basename(const tier::SysRoot& root, pid_t pid);

/// Decimal pid ("1234" → 1234); nullopt for anything else, including 0.
std::optional<pid_t> parse_pid(std::string_view text);

}  // namespace tierd::detail
