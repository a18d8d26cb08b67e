// Internal: the mount table under any root, for finding cgroup hierarchies
// (the cpuset backends, kernel tiering, the doctor's cgroup checks).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tier::posix {

struct Mount {
  std::string mount_point;  // octal escapes (\040) decoded
  std::string fstype;       // "cgroup", "cgroup2", ...
  std::string options;      // super options, comma-separated ("rw,cpuset")
};

/// Parses /proc/<pid>/mountinfo text; malformed lines are skipped.
std::vector<Mount> parse_mountinfo(std::string_view text);
/// Parses /proc/mounts (fstab format) text; malformed lines are skipped.
std::vector<Mount> parse_proc_mounts(std::string_view text);
/// /proc/self/mountinfo under `root`, else /proc/mounts; empty when neither.
std::vector<Mount> read_mounts(const SysRoot& root);

/// True when the comma-separated `options` contain `option` exactly.
bool has_option(std::string_view options, std::string_view option);

}  // namespace tier::posix
