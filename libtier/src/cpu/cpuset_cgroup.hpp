// Internal: the part of the cgroup v1 and v2 cpuset backends that is the
// same in both (a parent directory with one child directory per group,
// cpuset.cpus/cpuset.mems/cgroup.procs, the write plan executed in order).
// The versions differ in how exclusivity is written and read back, where the
// tasks of a removed group go and what the parent needs first; those are the
// virtual hooks below.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cpu/cpuset_plan.hpp"
#include "tier/cpu/cpuset_backend.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::cpu {

class CgroupCpusetBackend : public CpusetBackend {
 public:
  void apply(const std::map<std::string, CpusetTarget>& groups) override;
  void attach(const std::string& group, pid_t pid) override;
  std::vector<pid_t> members(const std::string& group) const override;
  /// cgroup v1 keeps the cpu controller in its own hierarchy, apart from
  /// tier's cpuset groups: not applied (v2 overrides).
  std::optional<std::string> set_cpu_limits(const std::string& group,
                                            const CpuLimits& limits) override;
  /// cgroup v1: a pod's container cgroups hold cpusets of their own that
  /// must stay subsets of the pod's, so narrowing the pod alone fails;
  /// not done (v2 overrides).
  std::optional<std::string> confine_foreign(const std::string& dir,
                                             const CpusetTarget& target) override;
  std::optional<std::string> release_foreign(const std::string&) noexcept override {
    return std::nullopt;
  }
  std::vector<std::string> notes() const override { return notes_; }
  void teardown() noexcept override;
  std::string describe() const override;

 protected:
  /// mount: kernel path of the hierarchy's root ("/sys/fs/cgroup/cpuset").
  CgroupCpusetBackend(SysRoot root, std::string mount, const std::string& parent_name);

  /// Creates the parent if needed and readies it for children (v2 enables
  /// the cpuset controller for its subtree).
  virtual void prepare_parent();
  virtual ExclusiveStyle exclusive_style() const = 0;
  /// Whether the child group at `dir` is exclusive now.
  virtual bool read_exclusive(const std::string& dir) const = 0;
  /// Runs one exclusive/partition write (the versions name the files).
  virtual void write_exclusivity(const CpusetWrite& write) = 0;
  /// Where the tasks of a group removed by apply() go.
  virtual std::string evacuation_dir() const = 0;
  /// The hierarchy root's CPUs and nodes, which every group must fit in.
  virtual std::string root_cpus_file() const = 0;
  virtual std::string root_mems_file() const = 0;
  /// CPUs the root no longer lists as its own because tier's groups hold
  /// them (v2: CPUs given to tier's partitions leave the root's effective
  /// set); they still count as offered.
  virtual CpuList held_by_own_groups() const { return {}; }
  /// "cgroup v1 cpuset" / "cgroup v2 cpuset".
  virtual std::string label() const = 0;

  std::string dir_of(const std::string& group) const {
    return group.empty() ? parent_dir_ : parent_dir_ + "/" + group;
  }
  void note(std::string text) { notes_.push_back(std::move(text)); }

  SysRoot root_;
  std::string mount_;
  std::string parent_dir_;

 private:
  std::map<std::string, CpusetTarget> read_children() const;
  void check_known_groups_present();
  void check_fits_machine(const CpusetTarget& parent) const;
  void execute(const CpusetWrite& write);

  std::set<std::string> known_;  // groups tier realised; one missing is "gone"
  bool parent_created_ = false;
  std::vector<std::string> notes_;
};

/// The backends, or nullptr with why_not set when not usable under `root`.
std::unique_ptr<CpusetBackend> make_cgroup_v2_backend(const SysRoot& root,
                                                      const std::string& parent_name,
                                                      std::string& why_not);
std::unique_ptr<CpusetBackend> make_cgroup_v1_backend(const SysRoot& root,
                                                      const std::string& parent_name,
                                                      std::string& why_not);
std::unique_ptr<CpusetBackend> make_affinity_backend(const SysRoot& root);

}  // namespace tier::cpu
