// Registry: discovery's side of the refresh (discovery.hpp). Explicit
// workloads win: a unit that one of them covers (the same process, a cgroup
// inside a registered or watched one, a cgroup holding a registered or
// rule-matched process) is never a discovered workload, and a discovered
// workload that one comes to cover is dropped.
#include <unistd.h>

#include <unordered_map>
#include <unordered_set>

#include "workloads/cgroup_fs.hpp"
#include "workloads/discovery.hpp"
#include "workloads/procfs.hpp"
#include "workloads/registry.hpp"

namespace tierd {

namespace {

bool inside(const std::string& path, const std::string& parent) {
  return path == parent ||
         (path.size() > parent.size() && path.compare(0, parent.size(), parent) == 0 &&
          path[parent.size()] == '/');
}

std::string mib(std::uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// What the explicit workloads (every source but discovery) hold.
class Coverage {
 public:
  Coverage(const tier::SysRoot& root, const std::vector<Workload>& workloads) : root_(root) {
    for (const Workload& w : workloads) {
      if (w.source == WorkloadSource::discovered) continue;
      if (w.pid) {
        pids_.emplace(*w.pid, w.id);
        if (auto cgroup = detail::read_cgroup_v2(root, *w.pid)) {
          pid_cgroups_.push_back({*cgroup, w.id});
        }
      } else {
        cgroups_.push_back({w.cgroup, w.id});
      }
    }
  }

  /// The id of the explicit workload covering the unit, or "".
  std::string covering(const SurveyUnit& unit) const {
    if (unit.pid) {
      if (auto found = pids_.find(*unit.pid); found != pids_.end()) return found->second;
      if (cgroups_.empty()) return "";
      auto cgroup = detail::read_cgroup_v2(root_, *unit.pid);
      return cgroup ? under_explicit(*cgroup) : "";
    }
    if (std::string id = under_explicit(unit.cgroup); !id.empty()) return id;
    for (const auto& [cgroup, id] : pid_cgroups_) {
      if (inside(cgroup, unit.cgroup)) return id;
    }
    return "";
  }

 private:
  std::string under_explicit(const std::string& cgroup) const {
    for (const auto& [path, id] : cgroups_) {
      if (inside(cgroup, path)) return id;
    }
    return "";
  }

  const tier::SysRoot& root_;
  std::unordered_map<pid_t, std::string> pids_;
  std::vector<std::pair<std::string, std::string>> cgroups_, pid_cgroups_;
};

}  // namespace

void Registry::configure_discovery(DiscoverySettings settings) {
  discovery_ = settings;
}

void Registry::refresh_discovered(std::int64_t now_unix_s, std::vector<Workload>& added,
                                  std::vector<DroppedWorkload>& dropped) {
  if (discovery_.mode == DiscoverMode::off) {
    // Off (the default) costs nothing: no survey, no coverage reads.
    for (std::size_t i = 0; i < workloads_.size();) {
      if (workloads_[i].source == WorkloadSource::discovered) {
        drop_at(i, "discovery turned off in the configuration", dropped);
      } else {
        ++i;
      }
    }
    discovery_counts_ = {};
    return;
  }
  const std::uint64_t keep = discovery_.min_bytes / 2;  // a workload at the edge stays
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  if (!survey_memo_) survey_memo_ = std::make_shared<SurveyMemo>();
  const Survey survey =
      tierd::survey(root_, discovery_.mode, keep, discovery_.self, page, survey_memo_.get());
  std::unordered_map<std::string, const SurveyUnit*> units;
  for (const SurveyUnit& unit : survey.units) units.emplace(discovered_id(unit), &unit);
  const Coverage coverage(root_, workloads_);
  auto describe = [&](const SurveyUnit& unit) {
    return std::string(unit.measure) + " " + mib(unit.anon_bytes) + " (found at " +
           mib(discovery_.min_bytes) + "); class " + to_string(unit.guess.cls) + ": " +
           unit.guess.why;
  };

  for (std::size_t i = 0; i < workloads_.size();) {
    Workload& workload = workloads_[i];
    if (workload.source != WorkloadSource::discovered) {
      ++i;
      continue;
    }
    auto found = units.find(workload.id);
    std::string reason;
    if (found == units.end()) {
      if (workload.pid) {
        auto stat = detail::read_proc_stat(root_, *workload.pid);
        reason = !stat || stat->exited()
                     ? "process " + std::to_string(*workload.pid) + " exited"
                     : "anonymous memory under " + mib(keep) + " (half the discovery threshold)";
      } else {
        reason = !detail::is_directory(root_, workload.cgroup)
                     ? "cgroup " + workload.cgroup + " removed"
                     : "anonymous memory under " + mib(keep) + " (half the discovery threshold)";
      }
    } else if (workload.pid && found->second->start_time != workload.start_time) {
      reason = "pid " + std::to_string(*workload.pid) + " reused by another process";
    } else if (std::string by = coverage.covering(*found->second); !by.empty()) {
      reason = "now covered by workload " + by;
    }
    if (!reason.empty()) {
      drop_at(i, std::move(reason), dropped);
      continue;
    }
    // The class follows what the owner says now (a renice, a new CPUWeight=).
    workload.workload_class = found->second->guess.cls;
    workload.found = describe(*found->second);
    units.erase(found);
    ++i;
  }

  std::size_t found_now = 0;
  for (const SurveyUnit& unit : survey.units) {
    const std::string id = discovered_id(unit);
    if (units.count(id) == 0) {  // kept above
      ++found_now;
      continue;
    }
    if (unit.anon_bytes < discovery_.min_bytes || !coverage.covering(unit).empty()) continue;
    Workload workload;
    workload.id = id;
    workload.name = unit.name;
    workload.source = WorkloadSource::discovered;
    workload.pid = unit.pid;
    workload.cgroup = unit.cgroup;
    workload.start_time = unit.start_time;
    workload.workload_class = unit.guess.cls;
    workload.found = describe(unit);
    workload.registered_unix_s = now_unix_s;
    workloads_.push_back(workload);
    added.push_back(std::move(workload));
    ++found_now;
  }
  discovery_counts_ = {survey.processes, survey.cgroups, found_now, survey.by_cgroup};
}

}  // namespace tierd
