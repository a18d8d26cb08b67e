// Affinity-only backend: when no cpuset controller is usable, a group is a
// target kept in memory. attach() sets the CPU affinity of every thread of
// the process and migrates its pages to the group's nodes (migrate_pages);
// apply() re-applies changed targets to the attached processes. Weaker than a
// cpuset: the process may widen its own affinity again, and its future
// allocations follow its own memory policy, not the group's nodes.
#include <numa.h>
#include <sched.h>
#include <signal.h>

#include <cerrno>
#include <set>

#include "cpu/cgroup_files.hpp"
#include "cpu/cpuset_cgroup.hpp"
#include "tier/posix/error.hpp"

namespace tier::cpu {

namespace {

class AffinityBackend final : public CpusetBackend {
 public:
  explicit AffinityBackend(SysRoot root) : root_(std::move(root)) {}

  CpusetBackendKind kind() const override { return CpusetBackendKind::affinity; }
  std::string describe() const override {
    return "affinity only (sched_setaffinity on every thread + migrate_pages), no cpuset group";
  }
  std::vector<std::string> notes() const override { return notes_; }
  std::optional<std::string> set_cpu_limits(const std::string&, const CpuLimits&) override {
    return std::string("the affinity backend has no cgroup to hold cpu.max/cpu.weight");
  }
  // Affinity set on today's processes would not reach the ones the cgroup
  // starts tomorrow.
  std::optional<std::string> confine_foreign(const std::string& dir, const CpusetTarget&) override {
    return "not confined by the affinity backend: " + dir +
           " starts processes of its own later (needs a cpuset controller)";
  }
  std::optional<std::string> release_foreign(const std::string&) noexcept override {
    return std::nullopt;
  }

  void apply(const std::map<std::string, CpusetTarget>& groups) override {
    const CpusetTarget parent = parent_target_for(groups);
    validate_cpuset_targets(groups, parent);
    check_fits_machine(parent);
    notes_.clear();
    notes_.push_back("exclusivity enforced by layout only (affinity backend)");
    // Processes of removed groups get the union of the remaining groups,
    // the equivalent of moving them to the parent.
    const CpuList everything = parent.cpus.empty() ? online_cpus() : parent.cpus;
    for (auto it = targets_.begin(); it != targets_.end();) {
      if (groups.count(it->first)) {
        ++it;
        continue;
      }
      for (pid_t pid : live_members(it->first)) set_affinity_all_threads(pid, everything);
      members_.erase(it->first);
      it = targets_.erase(it);
    }
    for (const auto& [name, target] : groups) {
      auto old = targets_.find(name);
      bool changed = old == targets_.end() || !(old->second == target);
      targets_[name] = target;
      if (!changed) continue;
      for (pid_t pid : live_members(name)) confine(pid, target);
    }
  }

  void attach(const std::string& group, pid_t pid) override {
    auto it = targets_.find(group);
    if (it == targets_.end()) {
      throw CpusetError("attach pid " + std::to_string(pid) + " to group '" + group +
                            "': no such group (not applied)",
                        group, std::to_string(pid), ENOENT);
    }
    confine(pid, it->second);
    for (auto& [name, pids] : members_) pids.erase(pid);
    members_[group].insert(pid);
  }

  std::vector<pid_t> members(const std::string& group) const override {
    return live_members(group);
  }

  void teardown() noexcept override {
    try {
      const CpuList all = online_cpus();
      for (const auto& [name, pids] : members_) {
        for (pid_t pid : pids) {
          try {
            if (alive(pid)) set_affinity_all_threads(pid, all);
          } catch (const CpusetError& e) {
            notes_.push_back(std::string("teardown: ") + e.what());
          }
        }
      }
    } catch (const std::exception& e) {
      notes_.push_back(std::string("teardown: ") + e.what());
    }
    members_.clear();
    targets_.clear();
  }

 private:
  bool alive(pid_t pid) const {
    // A zombie has no threads left to confine.
    auto stat = root_.read("/proc/" + std::to_string(pid) + "/stat");
    if (!stat) return false;
    auto close = stat->rfind(')');
    return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z';
  }

  std::vector<pid_t> live_members(const std::string& group) const {
    std::vector<pid_t> out;
    auto it = members_.find(group);
    if (it == members_.end()) return out;
    for (pid_t pid : it->second) {
      if (alive(pid)) out.push_back(pid);
    }
    return out;
  }

  CpuList online_cpus() const {
    return read_cpulist(root_, "/sys/devices/system/cpu/online").value_or(CpuList{});
  }

  void check_fits_machine(const CpusetTarget& parent) const {
    auto cpus = read_cpulist(root_, "/sys/devices/system/cpu/online");
    auto mems = read_cpulist(root_, "/sys/devices/system/node/has_memory");
    if (cpus && !is_subset(parent.cpus, *cpus)) {
      throw CpusetError("groups want cpus " + parent.cpus.to_string() + " but only " +
                            cpus->to_string() + " are online",
                        "/sys/devices/system/cpu/online", "", 0);
    }
    if (mems && !is_subset(parent.mems, *mems)) {
      throw CpusetError("groups want memory nodes " + parent.mems.to_string() + " but only " +
                            mems->to_string() + " have memory",
                        "/sys/devices/system/node/has_memory", "", 0);
    }
  }

  // Every thread, including threads started while we walk the list: a new
  // thread inherits the affinity of its creator, so a pass that finds no
  // thread we have not set yet is final.
  void set_affinity_all_threads(pid_t pid, const CpuList& cpus) const {
    const std::size_t bits = cpus.ids().empty() ? 1 : cpus.ids().back() + 1;
    cpu_set_t* set = CPU_ALLOC(bits);
    const std::size_t size = CPU_ALLOC_SIZE(bits);
    CPU_ZERO_S(size, set);
    for (unsigned cpu : cpus.ids()) CPU_SET_S(cpu, size, set);
    std::set<pid_t> done;
    int error = 0;
    pid_t failed = 0;
    for (int pass = 0; pass < 10 && error == 0; ++pass) {
      bool found_new = false;
      for (const auto& name : root_.list("/proc/" + std::to_string(pid) + "/task")) {
        pid_t tid = static_cast<pid_t>(std::stol(name));
        if (!done.insert(tid).second) continue;
        found_new = true;
        if (sched_setaffinity(tid, size, set) != 0 && errno != ESRCH) {
          error = errno;
          failed = tid;
          break;
        }
      }
      if (!found_new) break;
    }
    CPU_FREE(set);
    if (error != 0) {
      throw CpusetError("sched_setaffinity(" + std::to_string(failed) + ", " + cpus.to_string() +
                            ") of pid " + std::to_string(pid) + ": " + posix::errno_text(error),
                        "/proc/" + std::to_string(pid) + "/task", cpus.to_string(), error);
    }
    if (done.empty()) {
      throw CpusetError("pid " + std::to_string(pid) + " is gone (no /proc/PID/task)",
                        "/proc/" + std::to_string(pid), cpus.to_string(), ESRCH);
    }
  }

  // migrate_pages(pid, every node → mems): pages already on one of `mems`
  // stay where they are.
  void migrate_memory(pid_t pid, const CpuList& mems) {
    struct bitmask* from = numa_allocate_nodemask();
    struct bitmask* to = numa_allocate_nodemask();
    numa_bitmask_setall(from);
    for (unsigned node : mems.ids()) numa_bitmask_setbit(to, node);
    errno = 0;
    int left = numa_migrate_pages(pid, from, to);
    int error = errno;
    numa_bitmask_free(from);
    numa_bitmask_free(to);
    if (left < 0) {
      throw CpusetError("migrate_pages(" + std::to_string(pid) + ", all nodes -> " +
                            mems.to_string() + "): " + posix::errno_text(error),
                        "/proc/" + std::to_string(pid), mems.to_string(), error);
    }
    if (left > 0) {
      notes_.push_back("migrate_pages of pid " + std::to_string(pid) + " left " +
                       std::to_string(left) + " pages off nodes " + mems.to_string());
    }
  }

  void confine(pid_t pid, const CpusetTarget& target) {
    set_affinity_all_threads(pid, target.cpus);
    migrate_memory(pid, target.mems);
  }

  SysRoot root_;
  std::map<std::string, CpusetTarget> targets_;
  std::map<std::string, std::set<pid_t>> members_;
  std::vector<std::string> notes_;
};

}  // namespace

std::unique_ptr<CpusetBackend> make_affinity_backend(const SysRoot& root) {
  return std::make_unique<AffinityBackend>(root);
}

}  // namespace tier::cpu
