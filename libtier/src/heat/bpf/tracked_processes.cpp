#include "tracked_processes.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "tier/heat/source.hpp"

namespace tier::heat::bpf {

bool process_exited(const SysRoot& root, pid_t pid) {
  std::optional<std::string> stat = root.read("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  // The state letter follows the command name, which may itself hold ')'.
  std::size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 >= stat->size()) return false;
  char state = (*stat)[close + 2];
  return state == 'Z' || state == 'X' || state == 'x';
}

void require_running(const SysRoot& root, const std::vector<pid_t>& pids) {
  if (pids.empty()) throw SourceError("no process to track: give at least one pid");
  for (pid_t pid : pids) {
    if (pid <= 0) throw SourceError("invalid pid " + std::to_string(pid));
    if (process_exited(root, pid)) {
      throw SourceError("process " + std::to_string(pid) + " does not exist or has exited");
    }
  }
}

void track_tgids(const bpf_map* map, const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    auto key = static_cast<__u32>(pid);
    __u8 one = 1;
    if (bpf_map_update_elem(bpf_map__fd(map), &key, &one, BPF_ANY) != 0) {
      throw SourceError("cannot track process " + std::to_string(pid) + ": " +
                        std::strerror(errno));
    }
  }
}

void untrack_tgid(const bpf_map* map, pid_t pid) {
  auto key = static_cast<__u32>(pid);
  bpf_map_delete_elem(bpf_map__fd(map), &key);
}

std::string exited_reason(const std::vector<pid_t>& pids) {
  std::string text = pids.size() == 1 ? "process " : "processes ";
  for (std::size_t i = 0; i < pids.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(pids[i]);
  }
  return text + " exited";
}

}  // namespace tier::heat::bpf
