// The control socket's methods (docs/api.md): what tierctl can ask and change.
#include <sys/stat.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <chrono>
#include <ctime>

#include "config_check.hpp"
#include "daemon.hpp"
#include "heat_worker.hpp"
#include "log.hpp"
#include "tier/cpu/pool_spec.hpp"
#include "tier/heat/selection.hpp"
#include "tier/json/json_text.hpp"
#include "tier/protocol/control_protocol.hpp"
#include "tier/topology/topology_json.hpp"
#include "tier/values/values.hpp"
#include "unix_clock.hpp"

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

// Every field a request carries is checked through the value grammar (the
// one tierctl's flags and tierd.toml go through), named as the protocol
// spells it ("\"pid\""), and refused as bad_request with the grammar's
// sentence: "\"pid\" '0': expected a process id from 1 to 4194304".
std::string field(std::string_view key) {
  return "\"" + std::string(key) + "\"";
}

[[noreturn]] void refuse(const tier::values::ValueError& e) {
  throw Error(ErrorCode::bad_request, e.what());
}

// The text the grammar reads: a string as it is, any other JSON value as
// written (1.5, true, -3), so a number and its string spelling get the same
// answer.
std::string text_of(const json::value& value) {
  return value.is_string() ? std::string(value.as_string()) : tier::json_text(value);
}

const json::value* given(const json::object& params, const char* key) {
  const json::value* value = params.if_contains(key);
  return value == nullptr || value->is_null() ? nullptr : value;
}

/// A string field; with `expected`, "" is refused ("expected `expected`,
/// got nothing") rather than taken as not given.
std::optional<std::string> optional_string(const json::object& params, const char* key,
                                           const char* expected = nullptr) {
  const json::value* value = given(params, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) {
    refuse(tier::values::ValueError(field(key), text_of(*value), "expected a string"));
  }
  std::string text(value->as_string());
  if (expected != nullptr && text.empty()) {
    refuse(tier::values::ValueError(field(key), "",
                                    std::string("expected ") + expected + ", got nothing"));
  }
  return text;
}

/// An integer field, as a JSON number or a decimal string.
std::optional<std::int64_t> optional_int(const json::object& params, const char* key,
                                         std::int64_t min, std::int64_t max) {
  const json::value* value = given(params, key);
  if (value == nullptr) return std::nullopt;
  try {
    return tier::values::parse_integer(field(key), text_of(*value), min, max);
  } catch (const tier::values::ValueError& e) {
    refuse(e);
  }
}

/// A true/false field: a JSON boolean only.
bool optional_bool(const json::object& params, const char* key) {
  const json::value* value = given(params, key);
  if (value == nullptr) return false;
  if (!value->is_bool()) {
    refuse(tier::values::ValueError(field(key), text_of(*value), "expected true or false"));
  }
  return value->as_bool();
}

/// A process id field (1 to the kernel's PID_MAX_LIMIT), number or string.
std::optional<pid_t> optional_pid(const json::object& params, const char* key) {
  const json::value* value = given(params, key);
  if (value == nullptr) return std::nullopt;
  try {
    return tier::values::parse_pid(field(key), text_of(*value));
  } catch (const tier::values::ValueError& e) {
    refuse(e);
  }
}

// "id": a workload id ("pid:12", "cgroup:/..."), or a pid as a number or a
// string, which is checked as one: "0" or "-5" is no pid, not an unknown id.
std::string workload_key(const json::object& params) {
  const json::value* id = given(params, "id");
  if (id == nullptr) {
    throw Error(ErrorCode::bad_request, "\"id\" (a workload id or a pid) is required");
  }
  const std::string text = text_of(*id);
  const bool pid_like = !id->is_string() ||
                        (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) != 0 ||
                                           text[0] == '-' || text[0] == '+'));
  if (id->is_string() && text.empty()) {
    refuse(tier::values::ValueError("\"id\"", "", "expected a workload id or a pid, got nothing"));
  }
  if (!pid_like) return text;
  try {
    return "pid:" + std::to_string(tier::values::parse_pid("\"id\"", text));
  } catch (const tier::values::ValueError& e) {
    refuse(e);
  }
}

// A pool's spelling (PoolSpec), and a numa:N pool's node on this machine.
std::string checked_pool(const std::string& pool, const tier::Topology& topology) {
  if (std::string error; !tier::cpu::PoolSpec::parse(pool, &error)) {
    throw Error(ErrorCode::bad_request, "\"pool\": " + error);
  }
  try {
    require_pool_node(field("pool"), pool, node_ids(topology));
  } catch (const tier::values::ValueError& e) {
    refuse(e);
  }
  return pool;
}

// "auto", a source name, or two names "primary,cross-check" (as tierctl
// heat --source): unknown names are the caller's mistake, refused before
// the worker starts; an unavailable source is the worker's `failed`.
std::string checked_source(const std::string& spec) {
  if (spec == "auto") return spec;
  const auto& names = tier::heat::source_names();
  std::size_t parts = 0;
  for (std::size_t start = 0; start <= spec.size(); ++parts) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string_view name(spec.data() + start, comma - start);
    if (std::find(names.begin(), names.end(), name) == names.end() || parts == 2) {
      std::string known = "auto";
      for (std::string_view n : names) known += ", " + std::string(n);
      refuse(tier::values::ValueError(field("source"), spec,
                                      "expected auto, a heat source or two separated by a comma "
                                      "(sources: " +
                                          known + ")"));
    }
    start = comma + 1;
  }
  return spec;
}

// "duration_ms": milliseconds as a number, or a string the duration grammar
// reads ("2s", "500ms", "1500"); 100 ms to 10 s, 1 s when not given.
std::chrono::milliseconds heat_duration(const json::object& params) {
  using namespace std::chrono_literals;
  const json::value* value = given(params, "duration_ms");
  if (value == nullptr) return 1000ms;
  try {
    if (value->is_string()) {
      return tier::values::parse_duration(field("duration_ms"), value->as_string(), 100ms, 10'000ms,
                                          1ms);
    }
  } catch (const tier::values::ValueError& e) {
    refuse(e);
  }
  return std::chrono::milliseconds(*optional_int(params, "duration_ms", 100, 10'000));
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
  s.add_method("status", Access::read, [this](const json::value& p, const Peer&) {
    return status_json(optional_bool(params_object(p), "all_workloads"));
  });
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
  s.add_async_method(
      "heat", Access::read,
      [this](const json::value& p, const Peer& peer, ControlServer::Done done) {
        const json::object& params = params_object(p);
        HeatRequest request;
        auto pid = optional_pid(params, "pid");
        if (!pid) throw Error(ErrorCode::bad_request, "\"pid\" is required");
        request.pid = *pid;
        request.duration = heat_duration(params);
        request.source = checked_source(
            optional_string(params, "source", "auto or a heat source").value_or("auto"));
        if (!options_.root.exists("/proc/" + std::to_string(request.pid))) {
          throw Error(
              ErrorCode::not_found,
              tier::values::ValueError(field("pid"), std::to_string(request.pid), "no such process")
                  .what());
        }
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
  request.pid = optional_pid(params, "pid");
  request.cgroup = optional_string(params, "cgroup", "a cgroup directory path").value_or("");
  request.name = optional_string(params, "name", "a name").value_or("");
  if (auto word = optional_string(params, "class")) {
    auto parsed = parse_workload_class(*word);
    if (!parsed) {
      throw Error(ErrorCode::bad_request,
                  "\"class\" must be \"online\", \"offline\" or \"default\", not '" + *word + "'");
    }
    request.workload_class = *parsed;
  }
  request.priority = static_cast<int>(optional_int(params, "priority", -1000, 1000).value_or(0));
  request.pool = checked_pool(optional_string(params, "pool").value_or("shared"), *topology_);
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
    stored = &registry_.register_workload(request, unix_now());
    first_evidence_.listed(stored->id, steady_seconds());
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
  record_dropped(*removed, unix_now());
  first_evidence_.forget(removed->workload.id);
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
  checked_pool(*pool, *topology_);
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
  auto name = optional_string(params, "name", "a policy name");
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
        refuse(tier::values::ValueError(field("params." + std::string(key)), text_of(value),
                                        "expected a number"));
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
