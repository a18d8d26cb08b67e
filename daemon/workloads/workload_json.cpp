// The JSON form of a workload (docs/api.md's workload object) and its inverse.
#include <boost/json.hpp>
#include <limits>

#include "workloads/registry.hpp"

namespace tierd {

namespace json = boost::json;

json::object workload_json(const Workload& workload) {
  json::object out;
  out["id"] = workload.id;
  out["name"] = workload.name;
  out["source"] = to_string(workload.source);
  if (workload.pid) {
    out["pid"] = *workload.pid;
  } else {
    out["pid"] = nullptr;
  }
  out["cgroup"] = workload.cgroup;
  out["class"] = to_string(workload.workload_class);
  out["priority"] = workload.priority;
  out["pool"] = workload.pool;
  out["quota"] = to_string(workload.quota);
  out["budget_mbps"] = workload.budget_mbps;
  out["registered_unix_s"] = workload.registered_unix_s;
  if (workload.source == WorkloadSource::discovered) out["found"] = workload.found;
  return out;
}

namespace {

[[noreturn]] void bad_field(std::string_view field, std::string_view why) {
  throw std::invalid_argument("workload field '" + std::string(field) + "': " + std::string(why));
}

const json::value* field(const json::object& object, std::string_view name, bool required) {
  const json::value* value = object.if_contains(name);
  if (value == nullptr && required) bad_field(name, "missing");
  return value;
}

std::string string_field(const json::object& object, std::string_view name, bool required,
                         std::string fallback = "") {
  const json::value* value = field(object, name, required);
  if (value == nullptr) return fallback;
  if (!value->is_string()) bad_field(name, "expected a string");
  return std::string(value->as_string());
}

std::int64_t int_field(const json::object& object, std::string_view name, std::int64_t min,
                       std::int64_t max, std::int64_t fallback) {
  const json::value* value = field(object, name, false);
  if (value == nullptr) return fallback;
  std::int64_t number = 0;
  if (value->is_int64()) {
    number = value->as_int64();
  } else if (value->is_uint64() &&
             value->as_uint64() <=
                 static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    number = static_cast<std::int64_t>(value->as_uint64());
  } else {
    bad_field(name, "expected an integer");
  }
  if (number < min || number > max) bad_field(name, "out of range");
  return number;
}

}  // namespace

Workload workload_from_json(const json::value& value) {
  const json::object* object = value.if_object();
  if (object == nullptr) throw std::invalid_argument("workload: expected a JSON object");
  Workload workload;
  workload.id = string_field(*object, "id", true);
  if (workload.id.empty()) bad_field("id", "empty");
  workload.name = string_field(*object, "name", false);

  std::string source = string_field(*object, "source", true);
  auto parsed_source = parse_workload_source(source);
  if (!parsed_source) {
    bad_field("source", "'" + source + "' is not api, cgroup, rule, pod or discovered");
  }
  workload.source = *parsed_source;

  if (const json::value* pid = field(*object, "pid", false); pid != nullptr && !pid->is_null()) {
    workload.pid =
        static_cast<pid_t>(int_field(*object, "pid", 1, std::numeric_limits<pid_t>::max(), 0));
  }
  workload.cgroup = string_field(*object, "cgroup", false);
  if (workload.pid.has_value() == !workload.cgroup.empty()) {
    bad_field(workload.pid ? "cgroup" : "pid", "a workload has exactly one of pid and cgroup");
  }
  if (!workload.cgroup.empty() && workload.cgroup.front() != '/') {
    bad_field("cgroup", "'" + workload.cgroup + "' is not an absolute path");
  }

  std::string workload_class = string_field(*object, "class", false, "default");
  auto parsed_class = parse_workload_class(workload_class);
  if (!parsed_class) {
    bad_field("class", "'" + workload_class + "' is not online, offline or default");
  }
  workload.workload_class = *parsed_class;
  workload.priority = static_cast<int>(int_field(
      *object, "priority", std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), 0));
  workload.pool = string_field(*object, "pool", false, "shared");
  try {
    workload.quota = parse_quota(string_field(*object, "quota", false));
  } catch (const std::invalid_argument& error) {
    bad_field("quota", error.what());
  }
  workload.budget_mbps =
      static_cast<unsigned>(int_field(*object, "budget_mbps", 0, kMaxBudgetMbps, 0));
  workload.found = string_field(*object, "found", false);
  workload.registered_unix_s =
      int_field(*object, "registered_unix_s", std::numeric_limits<std::int64_t>::min(),
                std::numeric_limits<std::int64_t>::max(), 0);
  if (const json::value* start = field(*object, "start_time", false); start != nullptr) {
    if (start->is_uint64()) {
      workload.start_time = start->as_uint64();
    } else if (start->is_int64() && start->as_int64() >= 0) {
      workload.start_time = static_cast<std::uint64_t>(start->as_int64());
    } else {
      bad_field("start_time", "expected a non-negative integer");
    }
  }
  return workload;
}

}  // namespace tierd
