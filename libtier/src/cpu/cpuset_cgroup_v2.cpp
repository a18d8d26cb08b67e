// cgroup v2 cpuset: the controller must be listed in the hierarchy root's
// cgroup.controllers (on a hybrid host it is bound to v1 instead) and enabled
// in the subtree_control of the root and of tier's parent. Exclusive groups
// are remote partitions (kernel >= 6.7): the parent's cpuset.cpus.exclusive
// holds the exclusive children's CPUs, each such child writes its CPUs to
// its own cpuset.cpus.exclusive and becomes cpuset.cpus.partition = root.
// The partition state is read back: the kernel may accept the write and
// still say "root invalid (reason)". CPU limits (cpu.max, cpu.weight) need
// the cpu controller enabled the same way; it is enabled only when first
// asked for, so a host that never suppresses keeps its subtree_control.
#include <unistd.h>

#include <cerrno>

#include "cpu/cgroup_files.hpp"
#include "cpu/cpuset_cgroup.hpp"
#include "posix/mounts.hpp"
#include "tier/posix/error.hpp"

namespace tier::cpu {

namespace {

bool lists_word(const std::string& words, const std::string& word) {
  std::string padded = " " + words + " ";
  return padded.find(" " + word + " ") != std::string::npos;
}

class CgroupV2Backend final : public CgroupCpusetBackend {
 public:
  CgroupV2Backend(const SysRoot& root, const std::string& mount, const std::string& parent_name)
      : CgroupCpusetBackend(root, mount, parent_name) {}

  CpusetBackendKind kind() const override { return CpusetBackendKind::cgroup_v2; }

 protected:
  std::string label() const override { return "cgroup v2 cpuset"; }
  // No internal processes: tier's parent has controllers enabled for its
  // children, so it cannot hold tasks; they go back to the root.
  std::string evacuation_dir() const override { return mount_; }
  std::string root_cpus_file() const override { return "cpuset.cpus.effective"; }
  std::string root_mems_file() const override { return "cpuset.mems.effective"; }

  // A partition's CPUs leave the root's cpuset.cpus.effective; the parent's
  // cpuset.cpus.exclusive lists the ones tier's partitions hold.
  CpuList held_by_own_groups() const override {
    if (!has_exclusive_file_) return {};
    return read_cpulist(root_, parent_dir_ + "/cpuset.cpus.exclusive").value_or(CpuList{});
  }

  ExclusiveStyle exclusive_style() const override {
    return has_exclusive_file_ ? ExclusiveStyle::partition : ExclusiveStyle::none;
  }

  void prepare_parent() override {
    enable_cpuset(mount_);
    make_cgroup_dir(root_, parent_dir_);
    enable_cpuset(parent_dir_);
    has_exclusive_file_ = root_.exists(parent_dir_ + "/cpuset.cpus.exclusive");
    if (!has_exclusive_file_) {
      note(
          "exclusivity not enforced by the kernel, enforced by layout: no "
          "cpuset.cpus.exclusive in " +
          parent_dir_ + " (kernel older than 6.7)");
    }
  }

  std::optional<std::string> set_cpu_limits(const std::string& group,
                                            const CpuLimits& limits) override {
    const std::string dir = dir_of(group);
    try {
      auto controllers = root_.read(mount_ + "/cgroup.controllers");
      if (!controllers || !lists_word(*controllers, "cpu")) {
        return "no cpu controller in " + mount_ + "/cgroup.controllers";
      }
      enable_controller(mount_, "cpu");
      enable_controller(parent_dir_, "cpu");
      write_cgroup_file(root_, dir + "/cpu.max", limits.max);
      write_cgroup_file(root_, dir + "/cpu.weight", std::to_string(limits.weight));
    } catch (const CpusetError& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  }

  // The cgroup's own cpuset.cpus/cpuset.mems; the controller enabled on
  // every ancestor from the root down, as the kernel requires. A process in
  // a child cgroup without cpusets of its own follows this one; one with
  // its own gets the intersection (v2's effective sets), so the whole
  // subtree is confined either way. What the files held before the first
  // write is kept for release_foreign().
  std::optional<std::string> confine_foreign(const std::string& dir,
                                             const CpusetTarget& target) override {
    if (dir.rfind(mount_ + "/", 0) != 0) {
      return dir + " is not under the cgroup v2 hierarchy at " + mount_;
    }
    try {
      std::string ancestor = mount_;
      for (std::size_t at = mount_.size() + 1; at < dir.size();) {
        enable_cpuset(ancestor);
        const std::size_t slash = dir.find('/', at);
        if (slash == std::string::npos) break;
        ancestor = dir.substr(0, slash);
        at = slash + 1;
      }
      if (foreign_originals_.count(dir) == 0) {
        foreign_originals_[dir] = {read_cpulist(root_, dir + "/cpuset.cpus").value_or(CpuList{}),
                                   read_cpulist(root_, dir + "/cpuset.mems").value_or(CpuList{})};
      }
      write_cgroup_file(root_, dir + "/cpuset.cpus", target.cpus.to_string());
      write_cgroup_file(root_, dir + "/cpuset.mems", target.mems.to_string());
    } catch (const CpusetError& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  }

  // The files as they were. An empty one (the parent's sets) cannot be
  // written back while the cgroup has tasks (the kernel answers ENOSPC),
  // so it gets the parent's effective set: the same CPUs and nodes, though
  // no longer following later changes of the parent. The controllers
  // enabled on the way stay (kubelet and systemd expect them anyway).
  std::optional<std::string> release_foreign(const std::string& dir) noexcept override {
    try {
      auto original = foreign_originals_.find(dir);
      if (original == foreign_originals_.end()) return std::nullopt;
      const auto [cpus, mems] = original->second;
      foreign_originals_.erase(original);
      if (!is_directory(root_, dir)) return std::nullopt;
      const std::string parent = dir.substr(0, dir.rfind('/'));
      auto or_parent = [&](const CpuList& value, const char* effective) {
        return (value.empty() ? read_cpulist(root_, parent + "/" + effective).value_or(CpuList{})
                              : value)
            .to_string();
      };
      write_cgroup_file(root_, dir + "/cpuset.cpus", or_parent(cpus, "cpuset.cpus.effective"));
      write_cgroup_file(root_, dir + "/cpuset.mems", or_parent(mems, "cpuset.mems.effective"));
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  }

  bool read_exclusive(const std::string& dir) const override {
    // "root" and "root invalid (...)" both still hold CPUs to release.
    return root_.read(dir + "/cpuset.cpus.partition").value_or("member").rfind("root", 0) == 0;
  }

  void write_exclusivity(const CpusetWrite& write) override {
    const std::string dir = dir_of(write.group);
    if (write.kind == WriteKind::exclusive) {
      write_cgroup_file(root_, dir + "/cpuset.cpus.exclusive", write.value);
      return;
    }
    write_cgroup_file(root_, dir + "/cpuset.cpus.partition", write.value);
    std::string state = root_.read(dir + "/cpuset.cpus.partition").value_or("unreadable");
    if (write.value == "root" && state != "root") {
      note("exclusivity of " + write.group + " not enforced by the kernel: " + dir +
           "/cpuset.cpus.partition reads '" + state + "'");
    }
  }

 private:
  void enable_cpuset(const std::string& dir) { enable_controller(dir, "cpuset"); }
  void enable_controller(const std::string& dir, const std::string& controller) {
    auto enabled = root_.read(dir + "/cgroup.subtree_control");
    if (enabled && lists_word(*enabled, controller)) return;
    write_cgroup_file(root_, dir + "/cgroup.subtree_control", "+" + controller);
  }

  bool has_exclusive_file_ = false;
  // Confined cgroups not tier's own -> their cpuset.cpus and .mems before.
  std::map<std::string, std::pair<CpuList, CpuList>> foreign_originals_;
};

}  // namespace

std::unique_ptr<CpusetBackend> make_cgroup_v2_backend(const SysRoot& root,
                                                      const std::string& parent_name,
                                                      std::string& why_not) {
  std::vector<std::string> without;
  for (const auto& mount : posix::read_mounts(root)) {
    if (mount.fstype != "cgroup2") continue;
    auto controllers = root.read(mount.mount_point + "/cgroup.controllers");
    if (!controllers) {
      without.push_back("cgroup v2 at " + mount.mount_point +
                        " has no readable cgroup.controllers");
      continue;
    }
    if (!lists_word(*controllers, "cpuset")) {
      without.push_back("cgroup v2 at " + mount.mount_point +
                        " has no cpuset controller (controllers: " +
                        (controllers->empty() ? "none" : *controllers) + ")");
      continue;
    }
    if (::access(root.path(mount.mount_point).c_str(), W_OK) != 0) {
      without.push_back("cgroup v2 at " + mount.mount_point + " is not writable (" +
                        posix::errno_text(errno) + "; tier needs root)");
      continue;
    }
    return std::make_unique<CgroupV2Backend>(root, mount.mount_point, parent_name);
  }
  if (without.empty()) {
    why_not = "no cgroup2 mount in the mount table";
  } else {
    why_not = without.front();
    for (std::size_t i = 1; i < without.size(); ++i) why_not += "; " + without[i];
  }
  return nullptr;
}

}  // namespace tier::cpu
