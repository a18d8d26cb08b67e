// cgroup_v2_cpuset, cgroup_v1_cpuset: where tier can confine CPUs and memory
// nodes of a workload. Mounts come from the mount table under the root, so a
// hybrid layout (v1 controllers plus a v2 "unified" mount) is seen as it is.
#include "checks.hpp"
#include "posix/mounts.hpp"
#include "tier/posix/text.hpp"

namespace tier::doctor {

CheckResult check_cgroup_v2_cpuset(const Context& ctx) {
  CheckResult r;
  const std::string impact =
      "no cgroup v2 cpuset: tier confines workloads through the v1 cpuset hierarchy if mounted, "
      "else through sched_setaffinity/set_mempolicy only";
  std::vector<std::string> mount_points;
  for (const auto& mount : posix::read_mounts(ctx.root)) {
    if (mount.fstype == "cgroup2") mount_points.push_back(mount.mount_point);
  }
  if (mount_points.empty()) {
    r.status = Status::missing;
    r.detail = "no cgroup2 mount in the mount table";
    r.impact = impact;
    return r;
  }
  // cgroup.controllers is space-separated; a controller bound to a v1
  // hierarchy is absent from it even when the kernel has it.
  std::vector<std::string> seen;
  bool cpuset = false;
  for (const auto& point : mount_points) {
    auto controllers = ctx.root.read(point + "/cgroup.controllers");
    std::string list = controllers.value_or("unreadable");
    seen.push_back(point + " controllers: " + (list.empty() ? "none" : list));
    for (char& c : list) {
      if (c == ' ') c = ',';
    }
    if (controllers && posix::has_option(list, "cpuset")) cpuset = true;
  }
  r.detail = "cgroup2 at " + text::join(seen, "; ");
  if (cpuset) {
    r.status = Status::ok;
    return r;
  }
  r.status = Status::missing;
  r.detail += " (no cpuset: the controller is bound to a v1 hierarchy or not built)";
  r.impact = impact;
  return r;
}

CheckResult check_cgroup_v1_cpuset(const Context& ctx) {
  CheckResult r;
  for (const auto& mount : posix::read_mounts(ctx.root)) {
    if (mount.fstype != "cgroup" || !posix::has_option(mount.options, "cpuset")) continue;
    r.status = Status::ok;
    r.detail = "v1 cpuset hierarchy at " + mount.mount_point;
    auto cpus = ctx.root.read(mount.mount_point + "/cpuset.cpus");
    auto mems = ctx.root.read(mount.mount_point + "/cpuset.mems");
    if (cpus) r.detail += ", root cpuset.cpus=" + *cpus;
    if (mems) r.detail += ", cpuset.mems=" + *mems;
    return r;
  }
  r.status = Status::missing;
  r.detail = "no cgroup v1 mount with the cpuset controller";
  r.impact =
      "no v1 cpuset: tier uses the cgroup v2 cpuset if available, else sched_setaffinity and "
      "set_mempolicy per process (children of a workload are not confined)";
  return r;
}

}  // namespace tier::doctor
