#include "pools/pool_manager.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <set>
#include <stdexcept>

#include "log.hpp"
#include "tier/policy/suppression.hpp"

namespace tierd {

namespace json = boost::json;
using tier::cpu::Assignment;
using tier::cpu::CpusetError;
using tier::cpu::CpusetTarget;
using tier::cpu::PoolKind;
using tier::cpu::PoolSpec;

namespace {

// cgroup directory names: letters, digits, '-' and '_' only ("pid:42" -> "pid-42").
std::string sanitize(std::string_view text) {
  std::string name;
  for (char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_';
    name += plain ? c : '-';
  }
  return name;
}

using WorkloadIndex = std::map<std::string, const Workload*>;
WorkloadIndex index_by_id(const std::vector<Workload>& workloads) {
  WorkloadIndex by_id;
  for (const Workload& workload : workloads) by_id[workload.id] = &workload;
  return by_id;
}

bool is_process_workload(const Workload& workload) {
  return workload.pid.has_value();
}

// An offline member of a shared or numa:N pool: what suppression shrinks.
bool is_shared_offline(const Assignment& assignment, tier::WorkloadClass cls) {
  const auto spec = PoolSpec::parse(assignment.pool, nullptr);
  return cls == tier::WorkloadClass::offline && spec &&
         (spec->kind == PoolKind::shared || spec->kind == PoolKind::numa);
}

tier::cpu::PoolConfig pool_config_from(const PoolsConfig& config) {
  tier::cpu::PoolConfig pools;
  auto reserved = tier::CpuList::parse(config.reserved);
  if (!reserved) throw std::invalid_argument("pools.reserved: not a CPU list: " + config.reserved);
  pools.reserved = *reserved;
  pools.placement = config.placement == "spread" ? tier::cpu::PoolConfig::Placement::spread
                                                 : tier::cpu::PoolConfig::Placement::pack;
  return pools;
}

std::optional<tier::cpu::CpusetBackendKind> forced_backend(const PoolsConfig& config) {
  if (config.backend == "auto") return std::nullopt;
  return tier::cpu::parse_cpuset_backend_kind(config.backend);
}

json::array node_array(const std::vector<unsigned>& nodes) {
  json::array out;
  for (unsigned node : nodes) out.push_back(node);
  return out;
}

}  // namespace

std::string pool_group_name(const Assignment& assignment, tier::WorkloadClass cls) {
  const auto spec = PoolSpec::parse(assignment.pool, nullptr);
  const bool own_cpus =
      spec && (spec->kind == PoolKind::exclusive || spec->kind == PoolKind::immovable);
  if (own_cpus) return "claim-" + sanitize(assignment.workload);
  std::string name = sanitize(assignment.pool);
  if (cls == tier::WorkloadClass::offline) name += "-offline";
  return name;
}

PoolManager::PoolManager(const tier::SysRoot& root, std::shared_ptr<const tier::Topology> topology,
                         tier::cpu::CpuInventory inventory, const PoolsConfig& config)
    : topology_(std::move(topology)),
      inventory_(std::move(inventory)),
      pool_config_(pool_config_from(config)) {
  tier::cpu::BackendChoice choice =
      tier::cpu::choose_cpuset_backend(root, config.parent, forced_backend(config));
  backend_ = std::move(choice.backend);
  backend_reasons_ = std::move(choice.reasons);
  if (config.isolate_irqs) irqs_ = std::make_unique<tier::cpu::IrqIsolation>(root);
  log::info() << "pools: " << backend_->describe();
  for (const std::string& reason : backend_reasons_) log::info() << "pools: not used: " << reason;
}

PoolManager::~PoolManager() {
  teardown();
}

std::vector<tier::cpu::Claim> PoolManager::claims_for(
    const std::vector<Workload>& workloads) const {
  std::vector<tier::cpu::Claim> claims;
  for (const Workload& workload : workloads) {
    auto spec = PoolSpec::parse(workload.pool, nullptr);
    if (!spec) continue;  // validated at registration and in the config
    tier::cpu::Claim claim;
    claim.workload = workload.id;
    claim.cls = workload.workload_class;
    claim.pool = *spec;
    // A claim keeps the CPUs it holds while it claims the same kind of pool.
    if (const Assignment* now = assignment(workload.id)) {
      auto held_spec = PoolSpec::parse(now->pool, nullptr);
      if (held_spec && held_spec->kind == spec->kind &&
          (spec->kind == PoolKind::exclusive || spec->kind == PoolKind::immovable)) {
        claim.held = now->cpus;
      }
    }
    claims.push_back(std::move(claim));
  }
  return claims;
}

std::optional<std::string> PoolManager::admit(const std::vector<Workload>& current,
                                              const Workload& candidate) const {
  if (!is_process_workload(candidate)) return std::nullopt;
  std::vector<Workload> all;
  for (const Workload& workload : current) {
    if (workload.id != candidate.id) all.push_back(workload);
  }
  all.push_back(candidate);
  const tier::cpu::Layout layout =
      tier::cpu::compute_layout(inventory_, *topology_, pool_config_, claims_for(all));
  for (const tier::cpu::Refusal& refusal : layout.refused) {
    if (refusal.workload == candidate.id) return refusal.reason;
  }
  return std::nullopt;
}

std::vector<std::string> PoolManager::realise(const std::vector<Workload>& workloads,
                                              const PidsOf& pids_of) {
  problems_.clear();
  tier::cpu::Layout layout =
      tier::cpu::compute_layout(inventory_, *topology_, pool_config_, claims_for(workloads));
  for (const tier::cpu::Refusal& refusal : layout.refused) {
    problems_.push_back(refusal.workload + ": " + refusal.reason);
  }
  std::map<std::string, tier::WorkloadClass> class_of;
  for (const Workload& workload : workloads) class_of[workload.id] = workload.workload_class;

  // Suppression weighs the online workloads' CPUs against the offline ones'
  // (default-class workloads count for neither).
  std::vector<unsigned> online, offline;
  for (const Assignment& assignment : layout.assignments) {
    const tier::WorkloadClass cls = class_of[assignment.workload];
    const auto& ids = assignment.cpus.ids();
    if (cls == tier::WorkloadClass::online) online.insert(online.end(), ids.begin(), ids.end());
    if (cls == tier::WorkloadClass::offline) offline.insert(offline.end(), ids.begin(), ids.end());
  }
  online_cpus_ = tier::CpuList(std::move(online));
  offline_pool_ = tier::CpuList(std::move(offline));

  // What an assignment's members may use; a suppressed offline one keeps
  // the CPUs farthest from online work.
  auto target_of = [&](const Assignment& assignment, tier::WorkloadClass cls) {
    CpusetTarget target;
    target.cpus = assignment.cpus;
    target.mems = tier::CpuList(assignment.mems);
    const auto spec = PoolSpec::parse(assignment.pool, nullptr);
    target.exclusive = spec && spec->kind == PoolKind::exclusive;
    if (is_shared_offline(assignment, cls) && offline_limit_) {
      target.cpus = tier::policy::shrink_cpuset(target.cpus, std::max(*offline_limit_, 1u),
                                                online_cpus_, inventory_);
    }
    return target;
  };
  const WorkloadIndex by_id = index_by_id(workloads);
  std::map<std::string, CpusetTarget> groups;
  std::map<std::string, std::string> wanted_group;
  std::map<std::string, CpusetTarget> foreign;  // cgroup workload's directory -> target
  std::vector<std::string> offline_groups;      // the ones suppression shrinks and throttles
  for (const Assignment& assignment : layout.assignments) {
    const tier::WorkloadClass cls = class_of[assignment.workload];
    auto workload = by_id.find(assignment.workload);
    if (workload != by_id.end() && !is_process_workload(*workload->second)) {
      // A cgroup workload (watched child, pod) keeps its own cgroup.
      foreign[workload->second->cgroup] = target_of(assignment, cls);
      continue;
    }
    const std::string group = pool_group_name(assignment, cls);
    wanted_group[assignment.workload] = group;
    if (groups.count(group) != 0) continue;
    if (is_shared_offline(assignment, cls)) offline_groups.push_back(group);
    groups[group] = target_of(assignment, cls);
  }
  layout_ = std::move(layout);
  group_cpus_.clear();
  for (const auto& [name, target] : groups) group_cpus_[name] = target.cpus;
  try {
    backend_->apply(groups);
  } catch (const CpusetError& e) {
    problems_.push_back(std::string("cpusets not applied: ") + e.what());
    for (const std::string& problem : problems_) log::warn() << "pools: " << problem;
    return problems_;
  }

  std::map<std::string, std::string> group_of;
  std::map<std::string, std::vector<pid_t>> attached;
  // Each group's members read once per realise (not once per workload: with
  // 200 workloads that was 200 reads of a 200-line cgroup.procs).
  std::map<std::string, std::set<pid_t>> members_of;
  auto is_member = [&](const std::string& group, pid_t pid) {
    auto it = members_of.find(group);
    if (it == members_of.end()) {
      const std::vector<pid_t> members = backend_->members(group);
      it = members_of.emplace(group, std::set<pid_t>(members.begin(), members.end())).first;
    }
    return it->second.count(pid) != 0;
  };
  for (const Workload& workload : workloads) {
    auto group = wanted_group.find(workload.id);
    if (group == wanted_group.end()) continue;
    std::vector<pid_t> pids = pids_of(workload);
    const bool same_group =
        group_of_.count(workload.id) != 0 && group_of_.at(workload.id) == group->second;
    const std::vector<pid_t>& before = attached_[workload.id];
    std::vector<pid_t> done;
    for (pid_t pid : pids) {
      // A group that was emptied and recreated lost its tasks: attach again
      // whenever the backend no longer lists the pid.
      const bool known = same_group && std::count(before.begin(), before.end(), pid) != 0;
      if (known && is_member(group->second, pid)) {
        done.push_back(pid);
        continue;
      }
      try {
        backend_->attach(group->second, pid);
        done.push_back(pid);
      } catch (const CpusetError& e) {
        if (e.error == ESRCH) continue;  // exited meanwhile: the registry drops it next epoch
        problems_.push_back(workload.id + ": " + e.what());
      }
    }
    group_of[workload.id] = group->second;
    attached[workload.id] = std::move(done);
  }
  group_of_ = std::move(group_of);
  attached_ = std::move(attached);
  confine_foreign(foreign);
  limit_offline_cpu(offline_groups);
  isolate_irqs(groups);
  for (const std::string& problem : problems_) log::warn() << "pools: " << problem;
  return problems_;
}

// Cgroup workloads: their own cgroup's cpuset, written when it changes;
// the ones that left get their parent's sets back.
void PoolManager::confine_foreign(const std::map<std::string, CpusetTarget>& wanted) {
  foreign_notes_.clear();
  for (const auto& [dir, target] : confined_) {
    if (wanted.count(dir) == 0) release(dir);
  }
  std::map<std::string, CpusetTarget> confined;
  for (const auto& [dir, target] : wanted) {
    auto done = confined_.find(dir);
    if (done != confined_.end() && done->second == target) {
      confined[dir] = target;
      continue;
    }
    if (auto why_not = backend_->confine_foreign(dir, target)) {
      foreign_notes_.push_back(*why_not);
      continue;
    }
    log::info() << "pools: " << dir << " confined to CPUs " << target.cpus.to_string() << ", nodes "
                << target.mems.to_string();
    confined[dir] = target;
  }
  confined_ = std::move(confined);
}

void PoolManager::release(const std::string& dir) noexcept {
  if (auto why_not = backend_->release_foreign(dir)) {
    log::warn() << "pools: " << dir << " keeps tier's cpuset: " << *why_not;
  } else {
    log::info() << "pools: " << dir << " has its parent's CPUs and nodes again";
  }
}

// cpu.max/cpu.weight on the offline groups while suppression asks for them;
// a group that had limits gets the kernel's defaults back afterwards.
void PoolManager::limit_offline_cpu(const std::vector<std::string>& offline_groups) {
  std::map<std::string, tier::cpu::CpuLimits> written;
  cpu_limit_notes_.clear();
  for (const std::string& group : offline_groups) {
    const bool had = cpu_limits_written_.count(group) != 0;
    if (!offline_cpu_limits_ && !had) continue;
    const tier::cpu::CpuLimits limits = offline_cpu_limits_.value_or(tier::cpu::CpuLimits{});
    if (had && cpu_limits_written_.at(group) == limits) {
      if (offline_cpu_limits_) written[group] = limits;
      continue;
    }
    if (auto why_not = backend_->set_cpu_limits(group, limits)) {
      cpu_limit_notes_.push_back("cpu.max/cpu.weight of " + group + " not set: " + *why_not);
      continue;
    }
    log::info() << "pools: " << group << " cpu.max " << limits.max << ", cpu.weight "
                << limits.weight;
    if (offline_cpu_limits_) written[group] = limits;
  }
  cpu_limits_written_ = std::move(written);
}

// IRQs off every exclusive group's CPUs; always from the originals, so a
// claim that left gives its CPUs back to the IRQs too.
void PoolManager::isolate_irqs(const std::map<std::string, CpusetTarget>& groups) {
  if (!irqs_) return;
  std::vector<unsigned> exclusive;
  for (const auto& [name, target] : groups) {
    if (target.exclusive) {
      exclusive.insert(exclusive.end(), target.cpus.ids().begin(), target.cpus.ids().end());
    }
  }
  const tier::cpu::IrqReport report = irqs_->isolate(tier::CpuList(std::move(exclusive)));
  irq_notes_.clear();
  for (const tier::cpu::IrqMove& move : report.moved) {
    log::info() << "pools: irq " << move.irq << " " << move.before.to_string() << " -> "
                << move.after.to_string();
  }
  for (const tier::cpu::IrqSkip& skip : report.skipped) {
    irq_notes_.push_back("irq " + std::to_string(skip.irq) + " left alone: " + skip.reason);
  }
}

const Assignment* PoolManager::assignment(const std::string& workload_id) const {
  for (const Assignment& assignment : layout_.assignments) {
    if (assignment.workload == workload_id) return &assignment;
  }
  return nullptr;
}

std::vector<PoolFigures> PoolManager::figures(const std::vector<Workload>& workloads,
                                              const PidsOf& pids_of) const {
  const WorkloadIndex by_id = index_by_id(workloads);
  std::vector<PoolFigures> out;
  for (const tier::cpu::PoolView& view : layout_.pools) {
    unsigned members = 0;
    for (const std::string& id : view.members) {
      if (auto it = by_id.find(id); it != by_id.end()) {
        members += static_cast<unsigned>(pids_of(*it->second).size());
      }
    }
    out.push_back({view.name, static_cast<unsigned>(view.cpus.size()), members});
  }
  return out;
}

json::value PoolManager::to_json(const std::vector<Workload>& workloads,
                                 const PidsOf& pids_of) const {
  const WorkloadIndex by_id = index_by_id(workloads);
  json::array pools;
  for (const tier::cpu::PoolView& view : layout_.pools) {
    json::array members, ids;
    bool offline_member = false;
    for (const std::string& id : view.members) {
      ids.push_back(json::string(id));
      auto it = by_id.find(id);
      if (it == by_id.end()) continue;
      offline_member |= it->second->workload_class == tier::WorkloadClass::offline;
      for (pid_t pid : pids_of(*it->second)) members.push_back(pid);
    }
    pools.push_back(json::object{{"name", view.name},
                                 {"cpus", view.cpus.to_string()},
                                 {"mems", node_array(view.mems)},
                                 {"members", std::move(members)},
                                 {"workloads", std::move(ids)},
                                 {"suppressed", offline_limit_.has_value() && offline_member}});
  }
  json::array assignments;
  for (const Assignment& assignment : layout_.assignments) {
    auto group = group_of_.find(assignment.workload);
    // What the workload may use now: its group's CPUs (an offline group
    // under suppression has fewer than its pool).
    tier::CpuList cpus = assignment.cpus;
    if (group != group_of_.end() && group_cpus_.count(group->second) != 0) {
      cpus = group_cpus_.at(group->second);
    }
    assignments.push_back(json::object{
        {"workload", assignment.workload},
        {"pool", assignment.pool},
        {"cpus", cpus.to_string()},
        {"mems", node_array(assignment.mems)},
        {"group", group == group_of_.end() ? json::value(nullptr) : json::value(group->second)}});
  }
  json::array refused, reasons, notes, problems;
  for (const tier::cpu::Refusal& refusal : layout_.refused) {
    refused.push_back(json::object{{"workload", refusal.workload}, {"reason", refusal.reason}});
  }
  for (const std::string& reason : backend_reasons_) reasons.push_back(json::string(reason));
  for (const std::string& note : backend_->notes()) notes.push_back(json::string(note));
  for (const std::string& note : irq_notes_) notes.push_back(json::string(note));
  for (const std::string& note : cpu_limit_notes_) notes.push_back(json::string(note));
  for (const std::string& note : foreign_notes_) notes.push_back(json::string(note));
  for (const std::string& problem : problems_) problems.push_back(json::string(problem));
  return json::object{{"enabled", true},
                      {"backend", tier::cpu::to_string(backend_->kind())},
                      {"backend_description", backend_->describe()},
                      {"backend_reasons", std::move(reasons)},
                      {"notes", std::move(notes)},
                      {"pools", std::move(pools)},
                      {"assignments", std::move(assignments)},
                      {"refused", std::move(refused)},
                      {"problems", std::move(problems)}};
}

void PoolManager::teardown() noexcept {
  if (irqs_) irqs_->restore();
  if (backend_) {
    for (const auto& [dir, target] : confined_) release(dir);
    backend_->teardown();
  }
  confined_.clear();
  group_of_.clear();
  attached_.clear();
  cpu_limits_written_.clear();  // the groups and their limits are gone
}

}  // namespace tierd
