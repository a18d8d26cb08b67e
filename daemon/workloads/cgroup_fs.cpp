#include "workloads/cgroup_fs.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "workloads/procfs.hpp"

namespace tierd::detail {

namespace fs = std::filesystem;

std::string normalize_cgroup_path(std::string_view path) {
  fs::path full = (!path.empty() && path.front() == '/') ? fs::path(path)
                                                         : fs::path(kCgroupMount) / fs::path(path);
  std::string text = full.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

bool is_directory(const tier::SysRoot& root, const std::string& path) {
  std::error_code ec;
  return fs::is_directory(root.path(path), ec);
}

bool is_cgroup_dir(const tier::SysRoot& root, const std::string& path) {
  return is_directory(root, path) && root.exists(path + "/cgroup.procs");
}

std::vector<std::string> child_cgroups(const tier::SysRoot& root, const std::string& parent) {
  std::vector<std::string> children;
  std::error_code ec;
  // The directory entry's own type (no stat per file: a cgroup directory
  // holds dozens of control files).
  for (fs::directory_iterator it(root.path(parent), ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) continue;
    std::string child = parent + "/" + it->path().filename().string();
    if (root.exists(child + "/cgroup.procs")) children.push_back(std::move(child));
  }
  std::sort(children.begin(), children.end());
  return children;
}

std::vector<pid_t> cgroup_procs(const tier::SysRoot& root, const std::string& path) {
  std::vector<pid_t> pids;
  auto text = root.read(path + "/cgroup.procs");
  if (!text) return pids;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    if (auto pid = parse_pid(line)) pids.push_back(*pid);
  }
  return pids;
}

}  // namespace tierd::detail
