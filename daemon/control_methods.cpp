// The control socket's methods (docs/api.md): what tierctl can ask and change.
#include <sys/stat.h>

#include <boost/json.hpp>
#include <ctime>

#include "daemon.hpp"
#include "heat_worker.hpp"
#include "log.hpp"
#include "tier/cpu/pool_spec.hpp"
#include "tier/protocol/control_protocol.hpp"
#include "tier/topology/topology_json.hpp"
#include "workloads/procfs.hpp"

namespace tierd {

namespace {

namespace json = boost::json;
namespace control = tier::control;
using control::Error;
using control::ErrorCode;
using Access = ControlServer::Access;

const json::object& params_object(const json::value& params) {
  return params.as_object();  // the server made it an object
}

std::optional<std::string> optional_string(const json::object& params, const char* key) {
  const json::value* value = params.if_contains(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_string()) {
    throw Error(ErrorCode::bad_request, std::string("\"") + key + "\" must be a string");
  }
  return std::string(value->as_string());
}

std::optional<std::int64_t> optional_int(const json::object& params, const char* key,
                                         std::int64_t min, std::int64_t max) {
  const json::value* value = params.if_contains(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  std::int64_t number = 0;
  if (value->is_int64()) {
    number = value->as_int64();
  } else if (value->is_uint64() && value->as_uint64() <= static_cast<std::uint64_t>(max)) {
    number = static_cast<std::int64_t>(value->as_uint64());
  } else {
    throw Error(ErrorCode::bad_request, std::string("\"") + key + "\" must be an integer");
  }
  if (number < min || number > max) {
    throw Error(ErrorCode::bad_request, std::string("\"") + key + "\" must be from " +
                                            std::to_string(min) + " to " + std::to_string(max));
  }
  return number;
}

// "id": a workload id, or a pid as a number or a string.
std::string workload_key(const json::object& params) {
  const json::value* id = params.if_contains("id");
  if (id != nullptr && id->is_string()) return std::string(id->as_string());
  if (id != nullptr && (id->is_int64() || id->is_uint64())) return json::serialize(*id);
  throw Error(ErrorCode::bad_request, "\"id\" (a workload id or a pid) is required");
}

std::string checked_pool(const std::string& pool) {
  if (std::string error; !tier::cpu::PoolSpec::parse(pool, &error)) {
    throw Error(ErrorCode::bad_request, "\"pool\": " + error);
  }
  return pool;
}

// Only the process's owner or root may watch its accesses: heat reveals the
// address pattern of another user's program.
void require_heat_access(const Peer& peer, int pid) {
  if (peer.uid == 0) return;
  struct stat info {};
  const std::string proc = "/proc/" + std::to_string(pid);
  if (::stat(proc.c_str(), &info) != 0) {
    throw Error(ErrorCode::not_found, "no process " + std::to_string(pid));
  }
  if (info.st_uid != peer.uid) {
    throw Error(ErrorCode::permission, "permission denied: pid " + std::to_string(pid) +
                                           " belongs to another user (root may watch any)");
  }
}

}  // namespace

void Daemon::add_control_methods() {
  ControlServer& s = *server_;
  s.add_method("status", Access::read,
               [this](const json::value&, const Peer&) { return status_json(); });
  s.add_method("topology", Access::read,
               [this](const json::value&, const Peer&) { return tier::to_json(*topology_); });
  s.add_method("workloads.list", Access::read,
               [this](const json::value&, const Peer&) { return workloads_json(); });
  s.add_method("workloads.register", Access::change,
               [this](const json::value& p, const Peer&) { return register_workload(p); });
  s.add_method("workloads.unregister", Access::change,
               [this](const json::value& p, const Peer&) { return unregister_workload(p); });
  s.add_method("workloads.update", Access::change,
               [this](const json::value& p, const Peer&) { return update_workload(p); });
  s.add_method("pools.list", Access::read,
               [this](const json::value&, const Peer&) { return pools_json(); });
  s.add_method("policy.get", Access::read,
               [this](const json::value&, const Peer&) { return policy_json(); });
  s.add_method("policy.set", Access::change,
               [this](const json::value& p, const Peer&) { return set_policy(p); });
  s.add_method("pause", Access::change,
               [this](const json::value&, const Peer&) { return set_paused(true); });
  s.add_method("resume", Access::change,
               [this](const json::value&, const Peer&) { return set_paused(false); });
  s.add_method("reload", Access::change, [this](const json::value&, const Peer&) {
    log::info() << "reload requested over the control socket";
    notifier_.reloading();
    json::array changes;
    try {
      for (const std::string& change : reload()) changes.push_back(json::string(change));
    } catch (const std::exception& e) {
      notifier_.ready(serving_status(last_reload_->message));
      throw Error(ErrorCode::failed,
                  std::string("reload failed, running configuration kept: ") + e.what());
    }
    notifier_.ready(serving_status(last_reload_->message));
    return json::value{{"reloaded", true}, {"changes", std::move(changes)}};
  });
  s.add_async_method("heat", Access::read,
                     [this](const json::value& p, const Peer& peer, ControlServer::Done done) {
                       const json::object& params = params_object(p);
                       HeatRequest request;
                       auto pid = optional_int(params, "pid", 1, 4'194'304);
                       if (!pid) throw Error(ErrorCode::bad_request, "\"pid\" is required");
                       request.pid = static_cast<int>(*pid);
                       request.duration = std::chrono::milliseconds(
                           optional_int(params, "duration_ms", 100, 10'000).value_or(1000));
                       request.source = optional_string(params, "source").value_or("auto");
                       require_heat_access(peer, request.pid);
                       heat_->start(request, topology_, std::move(done));
                     });
}

json::value Daemon::workloads_json() const {
  json::array workloads;
  for (const Workload& workload : registry_.workloads()) {
    json::object object = workload_json(workload);
    if (auto found = residency_.find(workload.id); found != residency_.end()) {
      json::object by_node;
      for (const auto& [node, bytes] : found->second) by_node[std::to_string(node)] = bytes;
      const TierResidency residency = residency_by_tier(workload.id);
      object["resident_bytes_by_node"] = std::move(by_node);
      object["resident_bytes_by_tier"] = residency.to_json();
      object["fast_tier_share"] = residency.fast_share().value_or(0.0);
    }
    if (const tier::cpu::Assignment* given = pools_ ? pools_->assignment(workload.id) : nullptr) {
      json::array mems;
      for (unsigned node : given->mems) mems.push_back(node);
      object["pool_cpus"] = given->cpus.to_string();
      object["pool_mems"] = std::move(mems);
    }
    workloads.push_back(std::move(object));
  }
  json::array dropped;
  for (const Dropped& d : dropped_) {
    dropped.push_back({{"workload", workload_json(d.dropped.workload)},
                       {"reason", d.dropped.reason},
                       {"at_unix_s", d.at_unix_s}});
  }
  return {{"workloads", std::move(workloads)}, {"dropped", std::move(dropped)}};
}

json::value Daemon::register_workload(const json::value& p) {
  const json::object& params = params_object(p);
  RegisterRequest request;
  if (auto pid = optional_int(params, "pid", 1, 4'194'304)) request.pid = static_cast<pid_t>(*pid);
  request.cgroup = optional_string(params, "cgroup").value_or("");
  request.name = optional_string(params, "name").value_or("");
  if (auto word = optional_string(params, "class")) {
    auto parsed = parse_workload_class(*word);
    if (!parsed) {
      throw Error(ErrorCode::bad_request,
                  "\"class\" must be \"online\", \"offline\" or \"default\", not '" + *word + "'");
    }
    request.workload_class = *parsed;
  }
  request.priority = static_cast<int>(optional_int(params, "priority", -1000, 1000).value_or(0));
  request.pool = checked_pool(optional_string(params, "pool").value_or("shared"));
  if (auto quota = optional_string(params, "quota")) {
    try {
      request.quota = parse_quota(*quota);
    } catch (const std::invalid_argument& e) {
      throw Error(ErrorCode::bad_request, std::string("\"quota\": ") + e.what());
    }
  }
  request.budget_mbps =
      static_cast<unsigned>(optional_int(params, "budget_mbps", 0, kMaxBudgetMbps).value_or(0));
  const Workload* stored = nullptr;
  try {
    stored = &registry_.register_workload(request, static_cast<std::int64_t>(std::time(nullptr)));
  } catch (const RegistrationError& e) {
    const std::string what = e.what();
    const bool conflict = what.find("already registered") != std::string::npos;
    const bool missing = what.find("no process") != std::string::npos ||
                         what.find("not a cgroup") != std::string::npos ||
                         what.find("no such") != std::string::npos;
    throw Error(conflict  ? ErrorCode::conflict
                : missing ? ErrorCode::not_found
                          : ErrorCode::bad_request,
                what);
  }
  if (pools_) {
    // A pool that cannot be met refuses the registration: the caller (e.g.
    // `tierctl run`) must not start its command outside the pool it asked for.
    if (auto refusal = pools_->admit(registry_.workloads(), *stored)) {
      const std::string id = stored->id;
      registry_.unregister(id);
      throw Error(ErrorCode::conflict, "pool " + request.pool + " refused: " + *refusal);
    }
  }
  log::info() << "workload " << stored->id << " (" << stored->name << ") registered, class "
              << to_string(stored->workload_class) << ", pool " << stored->pool;
  const std::string id = stored->id;
  realise_pools();  // before the reply: the caller's process is in its pool when it hears back
  stored = registry_.find(id);
  json::value reply{{"workload", workload_json(*stored)}};
  save_state();
  return reply;
}

json::value Daemon::unregister_workload(const json::value& p) {
  const std::string key = workload_key(params_object(p));
  std::optional<DroppedWorkload> removed = registry_.unregister(key);
  if (!removed) throw Error(ErrorCode::not_found, "no workload '" + key + "' is registered");
  log::info() << "workload " << removed->workload.id << " unregistered";
  record_dropped(*removed, static_cast<std::int64_t>(std::time(nullptr)));
  realise_pools();
  save_state();
  return json::value{{"removed", workload_json(removed->workload)}};
}

// A live pool change (e.g. exclusive:1 -> exclusive:2): the claim keeps the
// CPUs it holds and grows next to them; a change the layout cannot meet is
// refused and nothing moves.
json::value Daemon::update_workload(const json::value& p) {
  const json::object& params = params_object(p);
  std::string key = workload_key(params);
  auto pool = optional_string(params, "pool");
  if (!pool)
    throw Error(ErrorCode::bad_request, "\"pool\" is required (the only field update changes)");
  checked_pool(*pool);
  if (auto pid = detail::parse_pid(key)) key = "pid:" + std::to_string(*pid);
  const Workload* current = registry_.find(key);
  if (current == nullptr)
    throw Error(ErrorCode::not_found, "no workload '" + key + "' is registered");
  if (pools_) {
    Workload candidate = *current;
    candidate.pool = *pool;
    if (auto refusal = pools_->admit(registry_.workloads(), candidate)) {
      throw Error(ErrorCode::conflict, "pool " + *pool + " refused: " + *refusal);
    }
  }
  const Workload* updated = nullptr;
  try {
    updated = registry_.set_pool(key, *pool);
  } catch (const RegistrationError& e) {
    throw Error(ErrorCode::bad_request, e.what());
  }
  log::info() << "workload " << key << " now in pool " << *pool;
  realise_pools();
  updated = registry_.find(key);
  json::value reply{{"workload", workload_json(*updated)}};
  save_state();
  return reply;
}

json::value Daemon::policy_json() const {
  json::object params;
  for (const auto& [name, value] : policy_params_) params[name] = value;
  json::array available;
  for (const tier::policy::PolicyInfo& info : tier::policy::registered_policies()) {
    json::array declared;
    for (const tier::policy::ParamSpec& spec : info.params) {
      declared.push_back({{"name", spec.name},
                          {"default", spec.default_value},
                          {"min", spec.min},
                          {"max", spec.max},
                          {"description", spec.description}});
    }
    available.push_back(
        {{"name", info.name}, {"description", info.description}, {"params", std::move(declared)}});
  }
  return {{"name", policy_name_},
          {"params", std::move(params)},
          {"paused", paused_},
          {"available", std::move(available)}};
}

json::value Daemon::set_policy(const json::value& p) {
  const json::object& params = params_object(p);
  auto name = optional_string(params, "name");
  if (!name) throw Error(ErrorCode::bad_request, "\"name\" is required");
  if (tier::policy::find_policy(*name) == nullptr) {
    throw Error(ErrorCode::not_found,
                "unknown policy '" + *name + "' (policies: " + tier::policy::policy_names() + ")");
  }
  tier::policy::Params given;
  if (const json::value* values = params.if_contains("params"); values && !values->is_null()) {
    if (!values->is_object()) throw Error(ErrorCode::bad_request, "\"params\" must be an object");
    for (const auto& [key, value] : values->as_object()) {
      if (!value.is_number()) {
        throw Error(ErrorCode::bad_request,
                    "parameter '" + std::string(key) + "' must be a number");
      }
      given[std::string(key)] = value.to_number<double>();
    }
  }
  use_policy(*name, given);  // std::invalid_argument → bad_request
  save_state();
  return policy_json();
}

json::value Daemon::set_paused(bool paused) {
  if (paused_ != paused) {
    paused_ = paused;
    log::info() << "migration " << (paused ? "paused" : "resumed") << " over the control socket";
    save_state();
    notifier_.status(serving_status(paused ? "migration paused" : "migration resumed"));
  }
  return json::value{{"paused", paused_}};
}

}  // namespace tierd
