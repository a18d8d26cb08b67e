// CpusetBackend: how tier confines the CPUs and memory nodes of its pools.
//
// Contract: a backend owns one parent group (default name "tier") and the
// child groups under it, one per pool or per exclusive/immovable workload
// ("shared", "numa-1", "exclusive-pid-123"). apply() realises a whole set of
// children at once in an order that never leaves a group with an empty set,
// never puts a child outside its parent and never lets two exclusive siblings
// overlap (see docs/cpusets.md); it validates the wanted set before writing
// anything, so a refused set leaves the previous state intact. attach() moves
// every thread of a process into a group. Three backends exist: cgroup v2
// cpuset, cgroup v1 cpuset and, when no cpuset controller is usable,
// affinity-only (sched_setaffinity on every thread + migrate_pages).
// choose_cpuset_backend() probes them in that order and says why each better
// one was not usable. Failures throw CpusetError, which names the file, the
// value written and the kernel's answer with a hint; group_gone marks a group
// that was removed underneath tier, so the daemon can drop its workload.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tier/cpu/cpulist.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::cpu {

enum class CpusetBackendKind { cgroup_v2, cgroup_v1, affinity };
/// "cgroup-v2", "cgroup-v1", "affinity".
const char* to_string(CpusetBackendKind kind);
/// Inverse of to_string(); nullopt for anything else.
std::optional<CpusetBackendKind> parse_cpuset_backend_kind(std::string_view text);

/// What one group should be: its CPUs, its memory nodes, and whether its CPUs
/// are exclusive (no sibling may use them; the kernel enforces it where it can).
struct CpusetTarget {
  CpuList cpus;
  CpuList mems;
  bool exclusive = false;
  friend bool operator==(const CpusetTarget&, const CpusetTarget&) = default;
};

/// CPU bandwidth of one group beside its cpuset (cgroup v2's cpu controller):
/// what offline suppression throttles where the kernel allows it.
struct CpuLimits {
  std::string max = "max";  // cpu.max: "QUOTA_US PERIOD_US" or "max" (no limit)
  unsigned weight = 100;    // cpu.weight, 1..10000 (the kernel's default 100)
  friend bool operator==(const CpuLimits&, const CpuLimits&) = default;
};

/// A refused or failed cpuset operation. what() is the whole story
/// ("write '1' to /sys/fs/cgroup/cpuset/tier/x/cpuset.cpu_exclusive: EINVAL
/// (Invalid argument): the group's CPUs overlap a sibling's"). path is the
/// file or directory, value what was written ("" for none), error the errno
/// (0 for a refusal before any write), group_gone true when the group's
/// directory vanished underneath tier.
struct CpusetError : std::runtime_error {
  CpusetError(const std::string& message, std::string file, std::string written, int errnum,
              bool gone = false)
      : std::runtime_error(message),
        path(std::move(file)),
        value(std::move(written)),
        error(errnum),
        group_gone(gone) {}
  std::string path;
  std::string value;
  int error = 0;
  bool group_gone = false;
};

class CpusetBackend {
 public:
  virtual ~CpusetBackend() = default;
  virtual CpusetBackendKind kind() const = 0;
  /// E.g. "cgroup v1 cpuset, groups under /sys/fs/cgroup/cpuset/tier".
  virtual std::string describe() const = 0;
  /// Realises the whole set of child groups in a safe order: creates missing
  /// ones, updates changed ones, removes groups not in `groups` (their tasks
  /// moved out first). Throws CpusetError; a set refused by validation
  /// (empty CPUs/nodes, overlapping exclusive groups, CPUs the machine does
  /// not offer) changes nothing.
  virtual void apply(const std::map<std::string, CpusetTarget>& groups) = 0;
  /// Moves every thread of pid into group (cgroup: cgroup.procs; affinity:
  /// sched_setaffinity on every /proc/PID/task/TID + migrate_pages to the mems).
  virtual void attach(const std::string& group, pid_t pid) = 0;
  /// Sets a group's CPU limits. Returns why they could not be applied
  /// (backend without a cpu controller, controller not available, the
  /// kernel's refusal), nullopt when they were. Never throws. Only the
  /// cgroup v2 backend can; the others say why not.
  virtual std::optional<std::string> set_cpu_limits(const std::string& group,
                                                    const CpuLimits& limits) = 0;
  /// Confines a cgroup tier does not own (a pod's, a watched parent's
  /// child) to target's CPUs and memory nodes through that cgroup's own
  /// cpuset files; `dir` is its kernel path. The cgroup and its processes
  /// stay where they are. Returns why it could not (nullopt when done).
  /// Never throws. Only the cgroup v2 backend can; the others say why not.
  virtual std::optional<std::string> confine_foreign(const std::string& dir,
                                                     const CpusetTarget& target) = 0;
  /// Gives such a cgroup its parent's CPUs and nodes back; returns why not.
  /// Never throws; a cgroup already gone is fine.
  virtual std::optional<std::string> release_foreign(const std::string& dir) noexcept = 0;
  /// Pids currently in a group.
  virtual std::vector<pid_t> members(const std::string& group) const = 0;
  /// What the last apply() could not enforce but did not fail on, e.g.
  /// "exclusivity not enforced by the kernel, enforced by layout: ...".
  virtual std::vector<std::string> notes() const = 0;
  /// Removes every child and the parent group, moving remaining tasks to the
  /// hierarchy's root first. Safe to call twice; never throws.
  virtual void teardown() noexcept = 0;
};

/// The backend picked and why each better one was not usable
/// ("cgroup v2 at /sys/fs/cgroup/unified has no cpuset controller (controllers: hugetlb)").
struct BackendChoice {
  std::unique_ptr<CpusetBackend> backend;
  std::vector<std::string> reasons;
};

/// Probes cgroup v2, cgroup v1, then affinity (always usable). With `force`,
/// only that backend is considered; if it is not usable, throws CpusetError
/// with the reason. parent_name must be one path component.
BackendChoice choose_cpuset_backend(const SysRoot& root, const std::string& parent_name = "tier",
                                    std::optional<CpusetBackendKind> force = std::nullopt);

}  // namespace tier::cpu
