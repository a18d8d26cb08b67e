// Internal: reading and writing cgroup files under a SysRoot with errors that
// say which file, which value and what the kernel answered, plus a hint
// naming the usual cause (cpuset_backend.hpp's CpusetError).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "tier/cpu/cpuset_backend.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::cpu {

/// Why the kernel refuses `value` in the file `leaf` ("cpuset.cpu_exclusive")
/// with `error`; "" when there is no known cause.
std::string cgroup_write_hint(const std::string& leaf, const std::string& value, int error);

/// Writes `value` to the file at kernel path `path` (no O_CREAT: cgroupfs
/// files exist or the group is gone). Throws CpusetError; ENOENT on a file
/// whose directory vanished is reported as group_gone.
void write_cgroup_file(const SysRoot& root, const std::string& path, const std::string& value);

/// A cpulist file ("0-3,8"); nullopt when unreadable or malformed.
std::optional<CpuList> read_cpulist(const SysRoot& root, const std::string& path);

/// The pids in a cgroup.procs/tasks file; nullopt when unreadable.
std::optional<std::vector<pid_t>> read_pids(const SysRoot& root, const std::string& path);

/// Moves every process of the group at `from_dir` to `to_dir` (both kernel
/// paths of cgroup directories) through their cgroup.procs; processes that
/// exit meanwhile are skipped. Throws CpusetError if one cannot be moved.
void move_processes(const SysRoot& root, const std::string& from_dir, const std::string& to_dir);

/// mkdir; an existing directory is fine. Throws CpusetError.
void make_cgroup_dir(const SysRoot& root, const std::string& dir);
/// rmdir, retried briefly while the kernel still counts exiting tasks
/// (EBUSY). Throws CpusetError.
void remove_cgroup_dir(const SysRoot& root, const std::string& dir);

bool is_directory(const SysRoot& root, const std::string& path);

}  // namespace tier::cpu
