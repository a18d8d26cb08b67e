// cgroup file access for the cpuset backends (cgroup_files.hpp).
#include "cpu/cgroup_files.hpp"
#include "tier/posix/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

namespace tier::cpu {

namespace fs = std::filesystem;

namespace {

std::string leaf_of(const std::string& path) {
  return fs::path(path).filename().string();
}

std::string parent_of(const std::string& path) {
  return fs::path(path).parent_path().string();
}

}  // namespace

std::string cgroup_write_hint(const std::string& leaf, const std::string& value, int error) {
  const bool procs = leaf == "cgroup.procs" || leaf == "tasks";
  const bool set_file = leaf == "cpuset.cpus" || leaf == "cpuset.mems";
  if (leaf == "cpuset.cpu_exclusive") {
    if (error == EINVAL) return "the group's CPUs overlap a sibling's CPUs";
    if (error == EACCES) return "the parent group is not cpu_exclusive";
    if (error == EBUSY) return "a child group is still cpu_exclusive";
  }
  if (leaf == "cpuset.cpus.exclusive" && error == EINVAL) {
    return "the CPUs overlap a sibling's exclusive CPUs, are not in the parent's "
           "cpuset.cpus.exclusive, or would leave a sibling without CPUs";
  }
  if (leaf == "cpuset.cpus.partition" && error == EINVAL) {
    return "the CPUs are not exclusive to this group (see cpuset.cpus.exclusive)";
  }
  if (set_file) {
    if (error == ENOSPC) return "the group has tasks and would be left with an empty set";
    if (error == EBUSY) return "a child group still uses ids outside " + value;
    if (error == EACCES) return "the value is not within the parent's " + leaf;
    if (error == EINVAL) {
      return "not online, not within the parent's " + leaf +
             ", or overlapping an exclusive sibling";
    }
  }
  if (procs) {
    if (error == ENOSPC) return "the group's cpuset.cpus or cpuset.mems is empty";
    if (error == ESRCH) return "process " + value + " is gone";
    if (error == EBUSY)
      return "cgroup v2 forbids processes in a group whose children have controllers";
  }
  if (leaf == "cgroup.subtree_control" && error == EBUSY) {
    return "the group has processes of its own (cgroup v2 no-internal-process rule)";
  }
  return "";
}

void write_cgroup_file(const SysRoot& root, const std::string& path, const std::string& value) {
  const std::string real = root.path(path).string();
  int fd = ::open(real.c_str(), O_WRONLY | O_CLOEXEC);
  int error = 0;
  if (fd < 0) {
    error = errno;
  } else {
    // The kernel takes the whole value in one write; a partial write of a
    // list would be a different value.
    ssize_t n = ::write(fd, value.data(), value.size());
    if (n < 0) error = errno;
    if (n >= 0 && static_cast<std::size_t>(n) != value.size()) error = EIO;
    ::close(fd);
  }
  if (error == 0) return;
  const bool gone = error == ENOENT && !is_directory(root, parent_of(path));
  std::string message = "write '" + value + "' to " + path + ": " + posix::errno_text(error);
  if (gone) {
    message += ": the group was removed underneath tier";
  } else if (std::string hint = cgroup_write_hint(leaf_of(path), value, error); !hint.empty()) {
    message += ": " + hint;
  }
  throw CpusetError(message, path, value, error, gone);
}

std::optional<CpuList> read_cpulist(const SysRoot& root, const std::string& path) {
  auto text = root.read(path);
  if (!text) return std::nullopt;
  return CpuList::parse(*text);
}

std::optional<std::vector<pid_t>> read_pids(const SysRoot& root, const std::string& path) {
  auto text = root.read(path);
  if (!text) return std::nullopt;
  std::vector<pid_t> pids;
  std::istringstream in(*text);
  long pid = 0;
  while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

void move_processes(const SysRoot& root, const std::string& from_dir, const std::string& to_dir) {
  // A process may fork while we move its siblings: repeat until empty.
  for (int pass = 0; pass < 10; ++pass) {
    auto pids = read_pids(root, from_dir + "/cgroup.procs");
    if (!pids || pids->empty()) return;
    for (pid_t pid : *pids) {
      try {
        write_cgroup_file(root, to_dir + "/cgroup.procs", std::to_string(pid));
      } catch (const CpusetError& e) {
        if (e.error != ESRCH) throw;
      }
    }
  }
}

void make_cgroup_dir(const SysRoot& root, const std::string& dir) {
  if (::mkdir(root.path(dir).c_str(), 0755) == 0 || errno == EEXIST) return;
  int error = errno;
  throw CpusetError("mkdir " + dir + ": " + posix::errno_text(error), dir, "", error,
                    error == ENOENT);
}

void remove_cgroup_dir(const SysRoot& root, const std::string& dir) {
  for (int attempt = 0;; ++attempt) {
    if (::rmdir(root.path(dir).c_str()) == 0 || errno == ENOENT) return;
    int error = errno;
    if (error != EBUSY || attempt == 50) {
      std::string message = "rmdir " + dir + ": " + posix::errno_text(error);
      if (error == EBUSY) message += ": the group still has tasks or child groups";
      throw CpusetError(message, dir, "", error);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool is_directory(const SysRoot& root, const std::string& path) {
  std::error_code ec;
  return fs::is_directory(root.path(path), ec);
}

}  // namespace tier::cpu
