// The cgroup tree as the registry sees it, through a SysRoot: which
// directories are cgroups, a parent's child cgroups, a cgroup's processes.
// Internal to tierd_workloads.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tierd::detail {

inline constexpr std::string_view kCgroupMount = "/sys/fs/cgroup";

/// Absolute, normalized kernel path: a relative path is taken under
/// /sys/fs/cgroup; "." and ".." are resolved lexically, trailing '/' removed.
std::string normalize_cgroup_path(std::string_view path);

/// A directory holding cgroup.procs.
bool is_cgroup_dir(const tier::SysRoot& root, const std::string& path);
bool is_directory(const tier::SysRoot& root, const std::string& path);

/// Absolute kernel paths of the immediate child cgroups of `parent`, sorted;
/// empty when the parent is missing.
std::vector<std::string> child_cgroups(const tier::SysRoot& root, const std::string& parent);

/// The pids in PATH/cgroup.procs; empty when unreadable.
std::vector<pid_t> cgroup_procs(const tier::SysRoot& root, const std::string& path);

}  // namespace tierd::detail
