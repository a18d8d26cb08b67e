// The processes a BPF heat program watches: checked at start, written into
// the program's tgid hash map, and watched for exit.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "tier/posix/sysroot.hpp"

struct bpf_map;

namespace tier::heat::bpf {

/// True when /proc/<pid> is gone or the process is a zombie (exited, not yet reaped).
bool process_exited(const SysRoot& root, pid_t pid);

/// Throws SourceError when `pids` is empty or one of them is not running.
void require_running(const SysRoot& root, const std::vector<pid_t>& pids);

/// Adds each pid to a tgid -> u8 hash map; throws SourceError on failure.
void track_tgids(const bpf_map* map, const std::vector<pid_t>& pids);

/// Removes one pid (its number may be reused by an unrelated process).
void untrack_tgid(const bpf_map* map, pid_t pid);

/// "process 12 exited" / "processes 12, 13 exited".
std::string exited_reason(const std::vector<pid_t>& pids);

}  // namespace tier::heat::bpf
