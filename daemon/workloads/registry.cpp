// Registry: explicit registration, removal, lookup and the state-file form.
// The watch/rule side (configure, refresh) is in refresh.cpp.
#include "workloads/registry.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "workloads/cgroup_fs.hpp"
#include "workloads/procfs.hpp"

namespace tierd {

namespace json = boost::json;

Registry::Registry(tier::SysRoot root) : root_(std::move(root)) {}

const Workload& Registry::register_workload(const RegisterRequest& request,
                                            std::int64_t now_unix_s) {
  if (request.pid.has_value() == !request.cgroup.empty()) {
    throw RegistrationError("give exactly one of pid and cgroup");
  }
  Workload workload;
  workload.source = WorkloadSource::api;
  workload.workload_class = request.workload_class;
  workload.priority = request.priority;
  workload.pool = request.pool;
  workload.quota = request.quota;
  workload.budget_mbps = request.budget_mbps;
  workload.registered_unix_s = now_unix_s;

  if (request.pid) {
    pid_t pid = *request.pid;
    if (pid <= 0) throw RegistrationError("pid must be positive, not " + std::to_string(pid));
    auto stat = detail::read_proc_stat(root_, pid);
    if (!stat) throw RegistrationError("no process " + std::to_string(pid));
    if (stat->exited()) throw RegistrationError("process " + std::to_string(pid) + " has exited");
    if (stat->kernel_thread()) {
      throw RegistrationError("pid " + std::to_string(pid) + " is a kernel thread");
    }
    // /proc/TID exists for every thread though /proc lists only processes.
    if (auto tgid = detail::read_tgid(root_, pid); tgid && *tgid != pid) {
      throw RegistrationError("pid " + std::to_string(pid) + " is a thread of process " +
                              std::to_string(*tgid) + "; register the process");
    }
    workload.id = "pid:" + std::to_string(pid);
    workload.pid = pid;
    workload.start_time = stat->start_time;
    workload.name = request.name;
    if (workload.name.empty()) {
      workload.name = root_.read(detail::proc_path(pid, "comm")).value_or(stat->comm);
    }
  } else {
    std::string path = detail::normalize_cgroup_path(request.cgroup);
    if (!detail::is_directory(root_, path)) {
      throw RegistrationError("cgroup " + path + " does not exist");
    }
    if (!detail::is_cgroup_dir(root_, path)) {
      throw RegistrationError(path + " is not a cgroup directory (no cgroup.procs)");
    }
    workload.id = "cgroup:" + path;
    workload.cgroup = path;
    workload.name = request.name;
    if (workload.name.empty()) {
      std::size_t slash = path.rfind('/');
      workload.name = slash == std::string::npos ? path : path.substr(slash + 1);
    }
  }
  if (find(workload.id) != nullptr) {
    throw RegistrationError(workload.id + " is already registered");
  }
  workloads_.push_back(std::move(workload));
  return workloads_.back();
}

void Registry::drop_at(std::size_t index, std::string reason,
                       std::vector<DroppedWorkload>& dropped) {
  rule_of_.erase(workloads_[index].id);
  dropped.push_back({std::move(workloads_[index]), std::move(reason)});
  workloads_.erase(workloads_.begin() + static_cast<std::ptrdiff_t>(index));
}

std::optional<DroppedWorkload> Registry::unregister(const std::string& id_or_pid) {
  std::string id = id_or_pid;
  if (auto pid = detail::parse_pid(id_or_pid)) id = "pid:" + std::to_string(*pid);
  for (std::size_t i = 0; i < workloads_.size(); ++i) {
    if (workloads_[i].id != id) continue;
    std::vector<DroppedWorkload> dropped;
    drop_at(i, "unregistered", dropped);
    return std::move(dropped.front());
  }
  return std::nullopt;
}

const Workload* Registry::set_pool(const std::string& id_or_pid, const std::string& pool) {
  std::string id = id_or_pid;
  if (auto pid = detail::parse_pid(id_or_pid)) id = "pid:" + std::to_string(*pid);
  for (Workload& workload : workloads_) {
    if (workload.id != id) continue;
    if (workload.source != WorkloadSource::api) {
      throw RegistrationError("workload " + id + " comes from a " + to_string(workload.source) +
                              " in tierd's configuration: change its pool there");
    }
    workload.pool = pool;
    return &workload;
  }
  return nullptr;
}

const Workload* Registry::find(const std::string& id) const {
  auto at = [&]() -> const Workload* {
    auto found = index_.find(id);
    if (found == index_.end() || found->second >= workloads_.size()) return nullptr;
    const Workload& workload = workloads_[found->second];
    return workload.id == id ? &workload : nullptr;
  };
  if (const Workload* hit = at()) return hit;
  // Moved or absent: a miss costs one rebuild (the registry changed since).
  index_.clear();
  for (std::size_t i = 0; i < workloads_.size(); ++i) index_.emplace(workloads_[i].id, i);
  return at();
}

std::vector<pid_t> Registry::pids_of(const Workload& workload) const {
  if (workload.pid) return {*workload.pid};
  if (workload.cgroup.empty()) return {};
  return detail::cgroup_procs(root_, workload.cgroup);
}

json::value Registry::to_json() const {
  json::array list;
  list.reserve(workloads_.size());
  for (const auto& workload : workloads_) {
    if (workload.source == WorkloadSource::discovered) continue;  // found again at the start
    json::object object = workload_json(workload);
    object["start_time"] = workload.start_time;
    list.emplace_back(std::move(object));
  }
  json::object document;
  document["workloads"] = std::move(list);
  return document;
}

std::vector<DroppedWorkload> Registry::restore(const json::value& state) {
  const json::object* document = state.if_object();
  if (document == nullptr) throw std::invalid_argument("state: expected a JSON object");
  const json::value* list = document->if_contains("workloads");
  if (list == nullptr) throw std::invalid_argument("state: field 'workloads' missing");
  if (!list->is_array()) throw std::invalid_argument("state: field 'workloads' is not an array");

  // Validate the whole document before changing anything.
  std::vector<Workload> stored;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < list->as_array().size(); ++i) {
    std::string where = "state: workloads[" + std::to_string(i) + "]: ";
    try {
      stored.push_back(workload_from_json(list->as_array()[i]));
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(where + error.what());
    }
    if (!ids.insert(stored.back().id).second) {
      throw std::invalid_argument(where + "duplicate workload id '" + stored.back().id + "'");
    }
  }

  std::vector<DroppedWorkload> dropped;
  for (auto& workload : stored) {
    if (find(workload.id) != nullptr) continue;  // already known: the live entry wins
    if (workload.pid) {
      pid_t pid = *workload.pid;
      auto stat = detail::read_proc_stat(root_, pid);
      if (!stat || stat->exited()) {
        dropped.push_back({std::move(workload),
                           "process " + std::to_string(pid) + " exited while tierd was down"});
        continue;
      }
      // 0: written without a start time; nothing to compare, adopt the current one.
      if (workload.start_time != 0 && stat->start_time != workload.start_time) {
        dropped.push_back(
            {std::move(workload), "pid " + std::to_string(pid) + " reused by another process"});
        continue;
      }
      workload.start_time = stat->start_time;
    } else if (!detail::is_directory(root_, workload.cgroup)) {
      std::string reason = "cgroup " + workload.cgroup + " removed while tierd was down";
      dropped.push_back({std::move(workload), std::move(reason)});
      continue;
    }
    workloads_.push_back(std::move(workload));
  }
  return dropped;
}

}  // namespace tierd
