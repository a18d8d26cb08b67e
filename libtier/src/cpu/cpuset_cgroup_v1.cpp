// cgroup v1 cpuset: exclusivity is the cpu_exclusive flag, which the kernel
// grants a child only under an exclusive parent and refuses (EINVAL) when the
// CPUs overlap any sibling. If tier's parent cannot be exclusive because
// other top-level cpusets share its CPUs, exclusivity is left to the layout
// (which never gives an exclusive group's CPUs to a sibling) and noted.
#include <unistd.h>

#include <cerrno>

#include "cpu/cgroup_files.hpp"
#include "cpu/cpuset_cgroup.hpp"
#include "posix/mounts.hpp"
#include "tier/posix/error.hpp"

namespace tier::cpu {

namespace {

class CgroupV1Backend final : public CgroupCpusetBackend {
 public:
  CgroupV1Backend(const SysRoot& root, const std::string& mount, const std::string& parent_name)
      : CgroupCpusetBackend(root, mount, parent_name) {}

  CpusetBackendKind kind() const override { return CpusetBackendKind::cgroup_v1; }

 protected:
  ExclusiveStyle exclusive_style() const override { return ExclusiveStyle::cpu_exclusive_flag; }
  std::string label() const override { return "cgroup v1 cpuset"; }
  // Tasks of a removed group stay confined to tier's CPUs.
  std::string evacuation_dir() const override { return parent_dir_; }
  std::string root_cpus_file() const override { return "cpuset.effective_cpus"; }
  std::string root_mems_file() const override { return "cpuset.effective_mems"; }

  bool read_exclusive(const std::string& dir) const override {
    return root_.read(dir + "/cpuset.cpu_exclusive").value_or("0") == "1";
  }

  void write_exclusivity(const CpusetWrite& write) override {
    const std::string file = dir_of(write.group) + "/cpuset.cpu_exclusive";
    if (write.group.empty()) {
      parent_unenforced_ = false;
      try {
        write_cgroup_file(root_, file, write.value);
      } catch (const CpusetError& e) {
        if (write.value != "1" || e.error != EINVAL) throw;
        parent_unenforced_ = true;
        note("exclusivity not enforced by the kernel, enforced by layout: " + parent_dir_ +
             " cannot be cpu_exclusive (" + e.what() +
             "; another top-level cpuset shares its CPUs)");
      }
      return;
    }
    // Without an exclusive parent the kernel refuses (EACCES) every child.
    if (write.value == "1" && parent_unenforced_) return;
    write_cgroup_file(root_, file, write.value);
  }

 private:
  bool parent_unenforced_ = false;
};

}  // namespace

std::unique_ptr<CpusetBackend> make_cgroup_v1_backend(const SysRoot& root,
                                                      const std::string& parent_name,
                                                      std::string& why_not) {
  for (const auto& mount : posix::read_mounts(root)) {
    if (mount.fstype != "cgroup" || !posix::has_option(mount.options, "cpuset")) continue;
    if (!root.exists(mount.mount_point + "/cpuset.cpus")) {
      why_not = "cgroup v1 cpuset at " + mount.mount_point + " has no cpuset.cpus";
      return nullptr;
    }
    if (::access(root.path(mount.mount_point).c_str(), W_OK) != 0) {
      why_not = "cgroup v1 cpuset at " + mount.mount_point + " is not writable (" +
                posix::errno_text(errno) + "; tier needs root)";
      return nullptr;
    }
    return std::make_unique<CgroupV1Backend>(root, mount.mount_point, parent_name);
  }
  why_not = "no cgroup v1 mount with the cpuset controller";
  return nullptr;
}

}  // namespace tier::cpu
