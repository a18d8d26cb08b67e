// Registry: the configured side — parent-cgroup watches and process-name
// rules — and the periodic liveness pass (refresh).
//
// Cost per refresh: one /proc/PID/stat read per process workload (but the
// discovered ones: discovery's survey follows those), one
// directory check per cgroup workload, one directory listing per watch, and
// a /proc scan (one stat read per process, an exe readlink when its comm
// matches no rule) only when rules are configured.
#include <unordered_set>

#include "workloads/cgroup_fs.hpp"
#include "workloads/discovery.hpp"
#include "workloads/kubepods.hpp"
#include "workloads/pod_overrides.hpp"
#include "workloads/procfs.hpp"
#include "workloads/registry.hpp"

namespace tierd {

// A process under consideration for a rule: its stat, and the basename of
// its exe read only when some rule needs it.
struct Registry::ProcessView {
  ProcessView(pid_t process, const detail::ProcStat& process_stat, const tier::SysRoot& sysroot)
      : pid(process), stat(process_stat), root(sysroot) {}

  pid_t pid;
  const detail::ProcStat& stat;
  const tier::SysRoot& root;
  mutable bool exe_read = false;
  mutable std::optional<std::string> exe;

  const std::optional<std::string>& exe_name() const {
    if (!exe_read) {
      exe = detail::exe_basename(root, pid);
      exe_read = true;
    }
    return exe;
  }
};

namespace {

template <typename Settings>
void apply_settings(Workload& workload, const Settings& settings) {
  workload.workload_class = settings.workload_class;
  workload.priority = settings.priority;
  workload.pool = settings.pool;
  workload.quota = settings.quota;
  workload.budget_mbps = settings.budget_mbps;
}

std::string parent_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

std::string basename_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void Registry::configure(std::vector<CgroupWatch> watches, std::vector<ProcessRule> rules) {
  // Compile everything first: a bad pattern leaves the old configuration.
  std::vector<std::regex> patterns;
  patterns.reserve(rules.size());
  for (const auto& rule : rules) {
    if (rule.match.empty()) throw std::invalid_argument("process rule with an empty match pattern");
    try {
      patterns.emplace_back(rule.match, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& error) {
      throw std::invalid_argument("process rule match '" + rule.match +
                                  "' is not a valid regular expression: " + error.what());
    }
  }
  for (auto& watch : watches) watch.parent = detail::normalize_cgroup_path(watch.parent);
  watches_ = std::move(watches);
  rules_ = std::move(rules);
  rule_patterns_ = std::move(patterns);
}

int Registry::matching_rule(const ProcessView& process) const {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (std::regex_match(process.stat.comm, rule_patterns_[i])) return static_cast<int>(i);
    const auto& exe = process.exe_name();
    if (exe && std::regex_match(*exe, rule_patterns_[i])) return static_cast<int>(i);
  }
  return -1;
}

Registry::RefreshResult Registry::refresh(std::int64_t now_unix_s) {
  RefreshResult result;
  refresh_pid_workloads(result.dropped);
  refresh_cgroup_workloads(result.dropped);
  add_watch_children(now_unix_s, result.added);
  add_rule_matches(now_unix_s, result.added);
  refresh_pods(now_unix_s, result.added, result.dropped);
  refresh_discovered(now_unix_s, result.added, result.dropped);  // last: explicit ones win
  return result;
}

void Registry::refresh_pid_workloads(std::vector<DroppedWorkload>& dropped) {
  std::unordered_set<pid_t> api_pids;
  for (const auto& workload : workloads_) {
    if (workload.pid && workload.source == WorkloadSource::api) api_pids.insert(*workload.pid);
  }
  for (std::size_t i = 0; i < workloads_.size();) {
    Workload& workload = workloads_[i];
    // Discovered processes are discovery's: its survey drops the ones gone
    // (a kill(pid, 0) or a failed statm read) without a stat read of each of
    // a server's thousands every epoch (refresh_discovered, SurveyMemo).
    if (!workload.pid || workload.source == WorkloadSource::discovered) {
      ++i;
      continue;
    }
    pid_t pid = *workload.pid;
    std::string pid_text = std::to_string(pid);
    auto stat = detail::read_proc_stat(root_, pid);
    if (!stat || stat->exited()) {
      drop_at(i, "process " + pid_text + " exited", dropped);
      continue;
    }
    if (stat->start_time != workload.start_time) {
      drop_at(i, "pid " + pid_text + " reused by another process", dropped);
      continue;
    }
    if (workload.source == WorkloadSource::rule) {
      if (api_pids.count(pid) != 0) {
        drop_at(i, "pid " + pid_text + " registered via api", dropped);
        continue;
      }
      int rule = matching_rule(ProcessView(pid, *stat, root_));
      if (rule < 0) {
        auto origin = rule_of_.find(workload.id);
        bool still_configured = false;
        for (const auto& configured : rules_) {
          if (origin != rule_of_.end() && configured.match == origin->second) {
            still_configured = true;
          }
        }
        drop_at(i,
                still_configured
                    ? "process " + pid_text + " no longer matches rule '" + origin->second + "'"
                    : std::string("rule removed from configuration"),
                dropped);
        continue;
      }
      // A reload may have changed the rule's settings, or another rule now
      // comes first.
      apply_settings(workload, rules_[static_cast<std::size_t>(rule)]);
      rule_of_[workload.id] = rules_[static_cast<std::size_t>(rule)].match;
    }
    ++i;
  }
}

void Registry::refresh_cgroup_workloads(std::vector<DroppedWorkload>& dropped) {
  for (std::size_t i = 0; i < workloads_.size();) {
    Workload& workload = workloads_[i];
    if (workload.pid || workload.cgroup.empty()) {
      ++i;
      continue;
    }
    if (!detail::is_directory(root_, workload.cgroup)) {
      drop_at(i, "cgroup " + workload.cgroup + " removed", dropped);
      continue;
    }
    if (workload.source == WorkloadSource::cgroup) {
      const CgroupWatch* watch = nullptr;
      std::string parent = parent_of(workload.cgroup);
      for (const auto& configured : watches_) {
        if (configured.parent == parent) {
          watch = &configured;
          break;
        }
      }
      if (watch == nullptr) {
        drop_at(i, "watch removed from configuration", dropped);
        continue;
      }
      apply_settings(workload, *watch);
    }
    ++i;
  }
}

void Registry::add_watch_children(std::int64_t now_unix_s, std::vector<Workload>& added) {
  if (watches_.empty()) return;
  std::unordered_set<std::string> ids;
  for (const auto& workload : workloads_) {
    if (!workload.cgroup.empty()) ids.insert(workload.id);
  }
  for (const auto& watch : watches_) {
    for (auto& child : detail::child_cgroups(root_, watch.parent)) {
      std::string id = "cgroup:" + child;
      if (!ids.insert(id).second) continue;
      Workload workload;
      workload.id = std::move(id);
      workload.name = basename_of(child);
      workload.source = WorkloadSource::cgroup;
      workload.cgroup = std::move(child);
      apply_settings(workload, watch);
      workload.registered_unix_s = now_unix_s;
      workloads_.push_back(workload);
      added.push_back(std::move(workload));
    }
  }
}

void Registry::add_rule_matches(std::int64_t now_unix_s, std::vector<Workload>& added) {
  if (rules_.empty()) return;
  std::unordered_set<pid_t> known;
  for (const auto& workload : workloads_) {
    if (workload.pid) known.insert(*workload.pid);
  }
  for (const auto& entry : root_.list("/proc")) {
    auto pid = detail::parse_pid(entry);
    if (!pid || known.count(*pid) != 0) continue;
    auto stat = detail::read_proc_stat(root_, *pid);
    if (!stat || stat->exited() || stat->kernel_thread()) continue;
    int rule = matching_rule(ProcessView(*pid, *stat, root_));
    if (rule < 0) continue;
    const ProcessRule& matched = rules_[static_cast<std::size_t>(rule)];
    Workload workload;
    workload.id = "rule:" + std::to_string(*pid);
    workload.name = stat->comm;
    workload.source = WorkloadSource::rule;
    workload.pid = *pid;
    workload.start_time = stat->start_time;
    apply_settings(workload, matched);
    workload.registered_unix_s = now_unix_s;
    rule_of_[workload.id] = matched.match;
    workloads_.push_back(workload);
    added.push_back(std::move(workload));
  }
}

}  // namespace tierd

namespace tierd {

void Registry::configure_kubepods(std::optional<KubepodsWatch> watch) {
  if (watch) watch->root = detail::normalize_cgroup_path(watch->root);
  kubepods_ = std::move(watch);
}

// Pods come and go with kubelet: each refresh lists them again, drops the
// pod workloads whose pod is gone and takes the current mapping (QoS class,
// CPU limit, overrides) for the others, so an override edit applies on the
// next epoch after a reload.
void Registry::refresh_pods(std::int64_t now_unix_s, std::vector<Workload>& added,
                            std::vector<DroppedWorkload>& dropped) {
  std::map<std::string, PodWorkload> pods;
  if (kubepods_) {
    static const PodOverrides kNone;
    for (PodWorkload& pod : discover_pods(root_, kubepods_->root,
                                          kubepods_->overrides ? *kubepods_->overrides : kNone)) {
      std::string cgroup = pod.cgroup;
      pods.emplace(std::move(cgroup), std::move(pod));
    }
  }
  auto apply = [](Workload& workload, const PodWorkload& pod) {
    workload.workload_class = pod.cls;
    workload.pool = pod.pool;
    workload.quota = pod.quota;
  };
  for (std::size_t i = 0; i < workloads_.size();) {
    Workload& workload = workloads_[i];
    if (workload.source != WorkloadSource::pod) {
      ++i;
      continue;
    }
    auto pod = pods.find(workload.cgroup);
    if (pod == pods.end()) {
      drop_at(i,
              kubepods_ ? "pod cgroup " + workload.cgroup + " no longer under " + kubepods_->root
                        : std::string("kubepods discovery removed from configuration"),
              dropped);
      continue;
    }
    apply(workload, pod->second);
    pods.erase(pod);
    ++i;
  }
  std::unordered_set<std::string> ids;
  for (const Workload& workload : workloads_) ids.insert(workload.id);
  for (auto& [cgroup, pod] : pods) {
    // Registered over the API or a watch's child already: that one stays.
    if (ids.count("cgroup:" + cgroup) != 0) continue;
    Workload workload;
    workload.id = "cgroup:" + cgroup;
    workload.name = "pod " + pod.uid;
    workload.source = WorkloadSource::pod;
    workload.cgroup = cgroup;
    apply(workload, pod);
    workload.registered_unix_s = now_unix_s;
    workloads_.push_back(workload);
    added.push_back(std::move(workload));
  }
}

}  // namespace tierd
