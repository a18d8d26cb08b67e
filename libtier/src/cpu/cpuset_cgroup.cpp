// The cgroup backends' shared part (cpuset_cgroup.hpp): read the tree as it
// is, plan the writes, execute them in order, and report groups that
// vanished underneath tier.
#include "cpu/cpuset_cgroup.hpp"

#include <cerrno>

#include "cpu/cgroup_files.hpp"

namespace tier::cpu {

CgroupCpusetBackend::CgroupCpusetBackend(SysRoot root, std::string mount,
                                         const std::string& parent_name)
    : root_(std::move(root)), mount_(std::move(mount)), parent_dir_(mount_ + "/" + parent_name) {}

std::string CgroupCpusetBackend::describe() const {
  return label() + ", groups under " + parent_dir_;
}

void CgroupCpusetBackend::prepare_parent() {
  make_cgroup_dir(root_, parent_dir_);
}

std::map<std::string, CpusetTarget> CgroupCpusetBackend::read_children() const {
  std::map<std::string, CpusetTarget> children;
  for (const auto& name : root_.list(parent_dir_)) {
    const std::string dir = dir_of(name);
    if (!is_directory(root_, dir)) continue;
    CpusetTarget target;
    target.cpus = read_cpulist(root_, dir + "/cpuset.cpus").value_or(CpuList{});
    target.mems = read_cpulist(root_, dir + "/cpuset.mems").value_or(CpuList{});
    target.exclusive = read_exclusive(dir);
    children[name] = target;
  }
  return children;
}

void CgroupCpusetBackend::check_known_groups_present() {
  if (!parent_created_) return;
  std::vector<std::string> gone;
  if (!is_directory(root_, parent_dir_)) {
    gone.assign(known_.begin(), known_.end());
    if (gone.empty()) gone.push_back("");
  } else {
    for (const auto& name : known_) {
      if (!is_directory(root_, dir_of(name))) gone.push_back(name);
    }
  }
  if (gone.empty()) return;
  // Forget them: the next apply() recreates what is still wanted.
  std::string names;
  for (const auto& name : gone) {
    known_.erase(name);
    names += (names.empty() ? "" : ", ") + (name.empty() ? parent_dir_ : name);
  }
  if (!is_directory(root_, parent_dir_)) parent_created_ = false;
  throw CpusetError(
      "cpuset group(s) " + names + " under " + parent_dir_ + " removed underneath tier",
      dir_of(gone.front()), "", ENOENT, true);
}

void CgroupCpusetBackend::check_fits_machine(const CpusetTarget& parent) const {
  auto cpus = read_cpulist(root_, mount_ + "/" + root_cpus_file());
  if (cpus) cpus = set_union(*cpus, held_by_own_groups());
  auto mems = read_cpulist(root_, mount_ + "/" + root_mems_file());
  if (cpus && !is_subset(parent.cpus, *cpus)) {
    throw CpusetError("cpuset groups want cpus " + parent.cpus.to_string() + " but " + mount_ +
                          " offers only " + cpus->to_string(),
                      mount_ + "/" + root_cpus_file(), "", 0);
  }
  if (mems && !is_subset(parent.mems, *mems)) {
    throw CpusetError("cpuset groups want memory nodes " + parent.mems.to_string() + " but " +
                          mount_ + " offers only " + mems->to_string(),
                      mount_ + "/" + root_mems_file(), "", 0);
  }
}

void CgroupCpusetBackend::apply(const std::map<std::string, CpusetTarget>& groups) {
  check_known_groups_present();
  const CpusetTarget parent_wanted = parent_target_for(groups);
  // Everything that can be refused is refused before the first write.
  validate_cpuset_targets(groups, parent_wanted);
  check_fits_machine(parent_wanted);
  notes_.clear();
  prepare_parent();
  parent_created_ = true;

  CpusetTarget parent_current;
  parent_current.cpus = read_cpulist(root_, parent_dir_ + "/cpuset.cpus").value_or(CpuList{});
  parent_current.mems = read_cpulist(root_, parent_dir_ + "/cpuset.mems").value_or(CpuList{});
  parent_current.exclusive = read_exclusive(parent_dir_);
  const auto current = read_children();
  for (const auto& write :
       plan_cpuset_writes(current, groups, parent_current, parent_wanted, exclusive_style())) {
    execute(write);
  }
  known_.clear();
  for (const auto& [name, target] : groups) known_.insert(name);
}

void CgroupCpusetBackend::execute(const CpusetWrite& write) {
  const std::string dir = dir_of(write.group);
  switch (write.kind) {
    case WriteKind::create:
      make_cgroup_dir(root_, dir);
      return;
    case WriteKind::cpus:
      write_cgroup_file(root_, dir + "/cpuset.cpus", write.value);
      return;
    case WriteKind::mems:
      write_cgroup_file(root_, dir + "/cpuset.mems", write.value);
      return;
    case WriteKind::exclusive:
    case WriteKind::partition:
      write_exclusivity(write);
      return;
    case WriteKind::remove:
      move_processes(root_, dir, evacuation_dir());
      remove_cgroup_dir(root_, dir);
      return;
  }
}

void CgroupCpusetBackend::attach(const std::string& group, pid_t pid) {
  const std::string dir = dir_of(group);
  if (group.empty() || !is_directory(root_, dir)) {
    bool gone = known_.count(group) > 0;
    throw CpusetError("attach pid " + std::to_string(pid) + " to cpuset group '" + group +
                          "': " + dir +
                          (gone ? " was removed underneath tier" : " does not exist (not applied)"),
                      dir, std::to_string(pid), ENOENT, gone);
  }
  // cgroup.procs moves every thread of the process at once (v1 and v2).
  write_cgroup_file(root_, dir + "/cgroup.procs", std::to_string(pid));
}

std::vector<pid_t> CgroupCpusetBackend::members(const std::string& group) const {
  const std::string dir = dir_of(group);
  auto pids = read_pids(root_, dir + "/cgroup.procs");
  if (!pids) {
    bool gone = known_.count(group) > 0;
    throw CpusetError("members of cpuset group '" + group + "': cannot read " + dir +
                          "/cgroup.procs" + (gone ? " (removed underneath tier)" : ""),
                      dir, "", ENOENT, gone);
  }
  return *pids;
}

std::optional<std::string> CgroupCpusetBackend::set_cpu_limits(const std::string&,
                                                               const CpuLimits&) {
  return label() + " keeps the cpu controller in another hierarchy: cpu.max/cpu.weight not set";
}

std::optional<std::string> CgroupCpusetBackend::confine_foreign(const std::string& dir,
                                                                const CpusetTarget&) {
  return "not confined on " + label() + ": " + dir +
         "'s child cgroups hold cpusets of their own that must stay within its";
}

void CgroupCpusetBackend::teardown() noexcept {
  // Children first (a directory with children cannot be removed), every
  // task back to the hierarchy's root, where it was before tier.
  try {
    if (!is_directory(root_, parent_dir_)) return;
    for (const auto& name : root_.list(parent_dir_)) {
      const std::string dir = dir_of(name);
      if (!is_directory(root_, dir)) continue;
      try {
        move_processes(root_, dir, mount_);
        remove_cgroup_dir(root_, dir);
      } catch (const CpusetError& e) {
        note(std::string("teardown: ") + e.what());
      }
    }
    move_processes(root_, parent_dir_, mount_);
    remove_cgroup_dir(root_, parent_dir_);
  } catch (const std::exception& e) {
    note(std::string("teardown: ") + e.what());
  }
  known_.clear();
  parent_created_ = false;
}

}  // namespace tier::cpu
