// `tierctl pools` (method pools.list: the CPU pools, their CPUs, memory nodes
// and members) and `tierctl ps` (tierd's workloads with the CPUs and nodes
// the kernel actually lets each process use, read from /proc/PID/status).
#include <boost/json.hpp>
#include <fstream>
#include <iostream>
#include <map>

#include "command.hpp"
#include "daemon_client.hpp"
#include "daemon_output.hpp"
#include "tier/json/json_text.hpp"
#include "usage.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

std::string joined(const json::value* array) {
  std::string out;
  for (const json::value& item : elements(array)) {
    if (!out.empty()) out += ",";
    out += text(&item);
  }
  return out.empty() ? "-" : out;
}

void render_pools(std::ostream& out, const json::value& result) {
  const json::value* enabled = field(&result, "enabled");
  if (enabled != nullptr && enabled->is_bool() && !enabled->get_bool()) {
    out << text(field(&result, "note")) << "\n";
    return;
  }
  out << "backend: " << text(field(&result, "backend_description")) << "\n";
  for (const json::value& reason : elements(field(&result, "backend_reasons"))) {
    out << "  not used: " << text(&reason) << "\n";
  }
  for (const json::value& note : elements(field(&result, "notes"))) {
    out << "  note: " << text(&note) << "\n";
  }
  Table table({"POOL", "CPUS", "MEMS", "MEMBERS", "SUPPRESSED"});
  for (const json::value& pool : elements(field(&result, "pools"))) {
    const json::value* suppressed = field(&pool, "suppressed");
    table.add(
        {text(field(&pool, "name")), text(field(&pool, "cpus")), joined(field(&pool, "mems")),
         joined(field(&pool, "members")),
         suppressed != nullptr && suppressed->is_bool() && suppressed->get_bool() ? "yes" : "no"});
  }
  if (table.empty()) {
    out << "no pools in use (no process workload registered)\n";
  } else {
    table.print(out);
  }
  for (const json::value& refusal : elements(field(&result, "refused"))) {
    out << "refused: " << text(field(&refusal, "workload")) << ": "
        << text(field(&refusal, "reason")) << "\n";
  }
  for (const json::value& problem : elements(field(&result, "problems"))) {
    out << "problem: " << text(&problem) << "\n";
  }
}

// "Cpus_allowed_list:\t0-1" from /proc/PID/status; "" when the process is gone.
std::map<std::string, std::string> allowed_lists(const json::value* pid) {
  std::map<std::string, std::string> lists;
  if (pid == nullptr || !pid->is_int64()) return lists;
  std::ifstream status("/proc/" + std::to_string(pid->as_int64()) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    for (const char* key : {"Cpus_allowed_list", "Mems_allowed_list"}) {
      const std::string prefix = std::string(key) + ":";
      if (line.rfind(prefix, 0) == 0) {
        std::string value = line.substr(prefix.size());
        value.erase(0, value.find_first_not_of(" \t"));
        lists[key] = value;
      }
    }
  }
  return lists;
}

std::string tiers_text(const json::value* by_tier) {
  if (by_tier == nullptr || !by_tier->is_object() || by_tier->as_object().empty()) return "-";
  std::string out;
  for (const auto& [rank, bytes] : by_tier->as_object()) {
    if (!out.empty()) out += " ";
    out += "t" + std::string(rank) + ":" + human_bytes(&bytes);
  }
  return out;
}

// The workloads reply with each process's allowed CPUs and nodes added.
json::value ps_result(const json::value& workloads_reply) {
  json::array rows;
  for (const json::value& workload : elements(field(&workloads_reply, "workloads"))) {
    const json::value* pid = field(&workload, "pid");
    auto lists = allowed_lists(pid);
    json::object row;
    const json::value* id = field(&workload, "id");
    row["id"] = id != nullptr ? *id : json::value(nullptr);
    row["pid"] = pid != nullptr ? *pid : json::value(nullptr);
    for (const char* key : {"name", "class", "pool", "pool_cpus", "pool_mems",
                            "resident_bytes_by_tier", "fast_tier_share"}) {
      if (const json::value* value = field(&workload, key)) row[key] = *value;
    }
    row["cpus"] = lists.count("Cpus_allowed_list") != 0 ? json::value(lists["Cpus_allowed_list"])
                                                        : json::value(nullptr);
    row["mems"] = lists.count("Mems_allowed_list") != 0 ? json::value(lists["Mems_allowed_list"])
                                                        : json::value(nullptr);
    rows.push_back(std::move(row));
  }
  return json::object{{"workloads", std::move(rows)}};
}

void render_ps(std::ostream& out, const json::value& result) {
  Table table({"ID", "NAME", "CLASS", "POOL", "CPUS", "MEMS", "RESIDENT BY TIER", "FAST"});
  for (const json::value& row : elements(field(&result, "workloads"))) {
    table.add({text(field(&row, "id")), text(field(&row, "name")), text(field(&row, "class")),
               text(field(&row, "pool")), text(field(&row, "cpus")), text(field(&row, "mems")),
               tiers_text(field(&row, "resident_bytes_by_tier")),
               percent(field(&row, "fast_tier_share"))});
  }
  if (table.empty()) {
    out << "no workloads registered\n";
  } else {
    table.print(out);
  }
}

}  // namespace

void add_pools_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto json_output = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("pools", "CPU pools: CPUs, memory nodes, members (tierd)");
  cmd->footer(
      "Asks tierd (method pools.list, docs/api.md) for its CPU pool layout: the shared\n"
      "pool, numa:N pools and each exclusive or immovable claim, with the CPUs and memory\n"
      "nodes (preference order) of each, the pids in it and whether offline suppression\n"
      "has shrunk it. The first lines name the cpuset backend in use and why better ones\n"
      "were not usable. Pools are enforced only with `[pools] enabled = true` in tierd's\n"
      "configuration (docs/pools.md).\n\n"
      "Examples:\n"
      "  tierctl pools\n"
      "  tierctl pools --json | jq '.pools[] | {name, cpus}'");
  set_usage(*cmd, "tierctl pools [--json]");
  cmd->add_flag("--json", *json_output,
                "Print the pools.list result as is: {\"pools\": [{\"name\", \"cpus\", \"mems\", "
                "\"members\", \"suppressed\"}], ...}");
  cmd->callback([&global, &action, json_output] {
    action = [&global, json_output] {
      return run_daemon_method(global, "pools.list", nullptr, *json_output, render_pools);
    };
  });
}

void add_ps_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto json_output = std::make_shared<bool>(false);
  CLI::App* cmd =
      app.add_subcommand("ps", "tierd's workloads with their pools, allowed CPUs and nodes");
  cmd->footer(
      "Lists the workloads tierd manages with class and pool, the CPUs and memory nodes\n"
      "the kernel lets each process use now (Cpus_allowed_list and Mems_allowed_list of\n"
      "/proc/PID/status, read here, so they show what is enforced, not what was asked),\n"
      "and resident memory per tier (t0 = fastest). Cgroup workloads have no single pid:\n"
      "their CPUs and nodes show as \"-\".\n\n"
      "Examples:\n"
      "  tierctl ps\n"
      "  tierctl ps --json | jq '.workloads[] | {pid, pool, cpus}'");
  set_usage(*cmd, "tierctl ps [--json]");
  cmd->add_flag("--json", *json_output,
                "JSON: {\"workloads\": [{\"pid\", \"class\", \"pool\", \"cpus\", \"mems\", ...}]}");
  cmd->callback([&global, &action, json_output] {
    action = [&global, json_output] {
      const json::value result = ps_result(daemon_request(global.socket, "workloads.list"));
      if (*json_output) {
        std::cout << tier::json_text(result) << "\n";
      } else {
        render_ps(std::cout, result);
      }
      return static_cast<int>(kOk);
    };
  });
}

}  // namespace tierctl
