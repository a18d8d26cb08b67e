// Discovery (issue 20): the workloads a machine has without anyone naming
// them. Every process, or every leaf cgroup where the machine is organised in
// cgroups (systemd services and scopes, containers, pods), whose anonymous
// memory reaches a threshold is one workload, with a class read from what its
// owner already told the kernel: cpu.idle and cpu.weight of its cgroup or an
// ancestor (systemd's CPUWeight=, CPUWeight=idle), its nice value and
// scheduling policy (`nice`, `chrt -b`/`-i`), or its kubepods QoS class.
//
// Contract: survey() only reads /proc and the cgroup tree through the
// SysRoot it is given (tests point it at a fixture tree) and never throws: a
// process or cgroup that vanishes mid-read is left out, and the next survey
// finds it gone. Internal to tierd_workloads; the registry calls it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tier/posix/sysroot.hpp"
#include "workloads/procfs.hpp"
#include "workloads/registry.hpp"

namespace tierd {

/// A class and why it was inferred ("nice 10", "cpu.weight 20 on
/// /sys/fs/cgroup/batch.slice (below the default 100)").
struct ClassGuess {
  WorkloadClass cls = WorkloadClass::normal;
  std::string why;
};

/// One process or leaf cgroup with its memory: a process's anonymous
/// resident memory (statm), a cgroup's anon + shmem (memory.stat; the sum of
/// its processes' anonymous memory without the memory controller).
struct SurveyUnit {
  std::optional<pid_t> pid;                  // a process unit
  std::string cgroup;                        // a cgroup unit: absolute kernel path
  std::string name;                          // comm, or the cgroup's basename
  std::uint64_t anon_bytes = 0;              // the memory above
  const char* measure = "anonymous memory";  // which, in words
  std::uint64_t start_time = 0;              // a process unit's stat field 22 (pid reuse check)
  ClassGuess guess;
};

struct Survey {
  std::vector<SurveyUnit> units;  // those at or above the floor
  std::size_t processes = 0;      // processes read (as units, not those inside cgroup units)
  std::size_t cgroups = 0;        // leaf cgroups read
  bool by_cgroup = false;         // what the mode came to on this machine
};

/// What surveys keep of each sizeable process between them, so that the
/// next ones read only its statm: the stat (name, start time, class) is read
/// again every kRestatEvery surveys, which also catches a reused pid.
struct ProcessMemo {
  std::string comm;
  std::uint64_t start_time = 0;
  ClassGuess guess;
  unsigned age = 0;  // surveys since the stat was read
};
/// A process's anonymous memory as a survey last read it (statm).
struct AnonMemo {
  std::uint64_t bytes = 0;
  std::uint64_t first_survey = 0;  // the survey that first listed the pid
};
struct SurveyMemo {
  std::map<pid_t, ProcessMemo> processes;
  /// Every listed process's last statm figure: a survey re-reads a process
  /// in its first kYoungSurveys surveys, then every kStatmEvery surveys
  /// (spread by pid), so that the reads per survey do not grow with a
  /// machine's thousands of settled processes. A process that grows past the
  /// floor late in its life is found within kStatmEvery surveys; a new one
  /// within the survey that first lists it or the next kYoungSurveys.
  std::map<pid_t, AnonMemo> anon;
  std::uint64_t surveys = 0;
  /// The kernel's last allocated pid at the last survey (/proc/loadavg's
  /// fifth field): the surveys between two full listings of /proc (every
  /// kListEvery) take the processes known at the last one plus the new pids
  /// since, each checked to be a process (Tgid = pid), not a thread. Listing
  /// /proc walks every task in the kernel (15 % of tierd's CPU with 2 000
  /// processes); a wrap of the pid counter or more than kMaxNewPids new pids
  /// lists it at once. A known pid among the new ones was reused: its memo
  /// entries are dropped, so its new process is read (and told apart by its
  /// start time) in that survey.
  std::optional<pid_t> last_pid;
};
inline constexpr unsigned kRestatEvery = 10;
inline constexpr std::uint64_t kStatmEvery = 8;
inline constexpr std::uint64_t kYoungSurveys = 4;
inline constexpr std::uint64_t kListEvery = 8;
inline constexpr pid_t kMaxNewPids = 4096;

/// Every unit with at least `floor_bytes` of anonymous memory; `self` is left
/// out; `page_bytes` is the kernel's page size (statm counts pages). With a
/// `memo`, processes already known skip their stat read (see SurveyMemo) and
/// the memo is left holding this survey's sizeable processes.
Survey survey(const tier::SysRoot& root, DiscoverMode mode, std::uint64_t floor_bytes, pid_t self,
              std::uint64_t page_bytes, SurveyMemo* memo = nullptr);

/// SCHED_IDLE, SCHED_BATCH or a positive nice: offline; a real-time policy
/// or a negative nice: online; otherwise default.
ClassGuess class_of_process(const detail::ProcStat& stat);
/// kubepods QoS from the path (BestEffort: offline; Guaranteed, Burstable:
/// online, as docs/kubernetes.md maps pods); else the nearest cgroup from
/// `path` up with cpu.idle 1 (offline) or a cpu.weight other than 100
/// (below: offline, above: online); else default.
ClassGuess class_of_cgroup(const tier::SysRoot& root, const std::string& path);

/// The unit's workload id: "found:PID" or "found:/sys/fs/cgroup/...".
std::string discovered_id(const SurveyUnit& unit);

}  // namespace tierd
