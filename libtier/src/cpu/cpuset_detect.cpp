// Backend choice: cgroup v2, then cgroup v1, then affinity (always usable);
// every better backend that is skipped leaves its reason.
#include <stdexcept>

#include "cpu/cpuset_cgroup.hpp"

namespace tier::cpu {

const char* to_string(CpusetBackendKind kind) {
  switch (kind) {
    case CpusetBackendKind::cgroup_v2:
      return "cgroup-v2";
    case CpusetBackendKind::cgroup_v1:
      return "cgroup-v1";
    case CpusetBackendKind::affinity:
      return "affinity";
  }
  return "?";
}

std::optional<CpusetBackendKind> parse_cpuset_backend_kind(std::string_view text) {
  for (auto kind :
       {CpusetBackendKind::cgroup_v2, CpusetBackendKind::cgroup_v1, CpusetBackendKind::affinity}) {
    if (text == to_string(kind)) return kind;
  }
  return std::nullopt;
}

BackendChoice choose_cpuset_backend(const SysRoot& root, const std::string& parent_name,
                                    std::optional<CpusetBackendKind> force) {
  if (parent_name.empty() || parent_name == "." || parent_name == ".." ||
      parent_name.find('/') != std::string::npos) {
    throw CpusetError("cpuset parent group name '" + parent_name + "' is not one path component",
                      parent_name, "", 0);
  }
  BackendChoice choice;
  auto wanted = [&](CpusetBackendKind kind) { return !force || *force == kind; };
  std::string why_not;
  if (wanted(CpusetBackendKind::cgroup_v2)) {
    choice.backend = make_cgroup_v2_backend(root, parent_name, why_not);
    if (choice.backend) return choice;
    choice.reasons.push_back(why_not);
  }
  if (wanted(CpusetBackendKind::cgroup_v1)) {
    choice.backend = make_cgroup_v1_backend(root, parent_name, why_not);
    if (choice.backend) return choice;
    choice.reasons.push_back(why_not);
  }
  if (wanted(CpusetBackendKind::affinity)) {
    choice.backend = make_affinity_backend(root);
    return choice;
  }
  throw CpusetError("cpuset backend " + std::string(to_string(*force)) +
                        " is not usable: " + choice.reasons.front(),
                    "", "", 0);
}

}  // namespace tier::cpu
