// `tierctl workloads`: the workloads tierd manages (list, register,
// unregister; methods workloads.* in docs/api.md).
#include <iostream>
#include <optional>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_output.hpp"
#include "usage.hpp"
#include "value_options.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

struct WorkloadsOptions {
  bool json = false;
  // register
  Value<pid_t> pid;
  Value<std::string> cgroup, name, klass, pool, quota;
  Value<std::int64_t> priority;
  Value<std::uint64_t> budget_mbps;
  // update (each subcommand has flags of its own)
  Value<json::value> update_id;
  Value<std::string> update_pool;
  // unregister
  Value<json::value> unregister_id;
};

/// The bounds tierd's workloads.register takes (docs/api.md).
constexpr std::int64_t kMaxPriority = 1000;
constexpr std::uint64_t kMaxBudgetMbps = 100'000;

/// A workload id as listed (KIND:NAME: pid:1234, cgroup:/batch.slice,
/// rule:314), sent as a string, or a bare pid, sent as a number; a pid in
/// either form is checked.
json::value parse_workload_id(std::string_view name, std::string_view text) {
  const std::string expected = "expected a workload id (pid:1234, cgroup:/batch.slice) or a pid";
  if (text.empty())
    throw tier::values::ValueError(std::string(name), "", expected + ", got nothing");
  if (text.find_first_not_of("0123456789") == std::string_view::npos) {
    return static_cast<std::int64_t>(tier::values::parse_pid(name, text));
  }
  const auto colon = text.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 == text.size()) {
    throw tier::values::ValueError(std::string(name), std::string(text), expected);
  }
  if (text.starts_with("pid:")) {
    try {
      tier::values::parse_pid(name, text.substr(4));
    } catch (const tier::values::ValueError& e) {
      throw tier::values::ValueError(std::string(name), std::string(text),
                                     "the PID of pid:PID: " + e.why());
    }
  }
  return json::string(text);
}

/// The pool and quota words, checked by the grammar tierctl run uses.
json::string pool_param(const Value<std::string>& flag) {
  return json::string(parse_pool(flag.name(), flag.get().value()));
}

/// Sum of resident_bytes_by_node, "-" until tierd has sampled the workload.
std::string resident(const json::value& workload) {
  const json::value* by_node = field(&workload, "resident_bytes_by_node");
  if (by_node == nullptr || !by_node->is_object()) return "-";
  std::optional<double> total;
  for (const auto& node : by_node->get_object()) {
    if (auto bytes = number(&node.value())) total = total.value_or(0) + *bytes;
  }
  return total ? human_bytes(*total) : "-";
}

std::string resident_detail(const json::value& workload) {
  const json::value* by_node = field(&workload, "resident_bytes_by_node");
  if (by_node == nullptr || !by_node->is_object() || by_node->get_object().empty()) return "";
  std::string detail;
  for (const auto& node : by_node->get_object()) {
    detail += (detail.empty() ? "" : ", ") + std::string("node ") + std::string(node.key()) + ": " +
              human_bytes(&node.value());
  }
  return " (" + detail + ")";
}

void render_workload(std::ostream& out, const json::value& workload) {
  out << "  id:         " << text(field(&workload, "id")) << "\n";
  out << "  name:       " << text(field(&workload, "name")) << "\n";
  out << "  source:     " << text(field(&workload, "source")) << "\n";
  const json::value* cgroup = field(&workload, "cgroup");
  const json::value* pid = field(&workload, "pid");
  if (text(pid) != "-" && text(pid) != "0") out << "  pid:        " << text(pid) << "\n";
  if (text(cgroup) != "-") out << "  cgroup:     " << text(cgroup) << "\n";
  out << "  class:      " << text(field(&workload, "class")) << "\n";
  out << "  priority:   " << text(field(&workload, "priority")) << "\n";
  out << "  pool:       " << text(field(&workload, "pool")) << "\n";
  out << "  quota:      " << text(field(&workload, "quota")) << "\n";
  out << "  budget:     " << text(field(&workload, "budget_mbps"))
      << " MB/s (0: the policy's only)\n";
  out << "  registered: " << utc_time(field(&workload, "registered_unix_s")) << "\n";
  out << "  resident:   " << resident(workload) << resident_detail(workload) << "\n";
  out << "  fast share: " << percent(field(&workload, "fast_tier_share")) << "\n";
}

std::string dropped_name(const json::value* workload) {
  if (workload == nullptr || !workload->is_object()) return text(workload);
  std::string name = text(field(workload, "id"));
  if (const std::string n = text(field(workload, "name")); n != "-") name += " (" + n + ")";
  return name;
}

void render_list(std::ostream& out, const json::value& result) {
  const json::array& workloads = elements(field(&result, "workloads"));
  if (workloads.empty()) {
    out << "no workloads registered\n";
  } else {
    Table table({"ID", "NAME", "SOURCE", "CLASS", "PRIO", "POOL", "QUOTA", "RESIDENT", "FAST"},
                {4, 7, 8});
    for (const json::value& w : workloads) {
      table.add({text(field(&w, "id")), text(field(&w, "name")), text(field(&w, "source")),
                 text(field(&w, "class")), text(field(&w, "priority")), text(field(&w, "pool")),
                 text(field(&w, "quota")), resident(w), percent(field(&w, "fast_tier_share"))});
    }
    table.print(out);
    // How discovery found each of its workloads, and why that class.
    bool heading = false;
    for (const json::value& w : workloads) {
      const json::value* found = field(&w, "found");
      if (found == nullptr || !found->is_string()) continue;
      if (!heading) out << "\nfound by discovery:\n";
      heading = true;
      out << "  " << text(field(&w, "id")) << ": " << text(found) << "\n";
    }
  }
  const json::array& dropped = elements(field(&result, "dropped"));
  if (dropped.empty()) return;
  out << "\nrecently dropped (" << dropped.size() << "):\n";
  for (const json::value& d : dropped) {
    out << "  " << utc_time(field(&d, "at_unix_s")) << "  " << dropped_name(field(&d, "workload"))
        << ": " << text(field(&d, "reason")) << "\n";
  }
}

int run_list(const GlobalOptions& global, const WorkloadsOptions& options) {
  return run_daemon_method(global, "workloads.list", nullptr, options.json, render_list);
}

int run_register(const GlobalOptions& global, const WorkloadsOptions& options) {
  json::object params;
  if (auto pid = options.pid.get()) params["pid"] = static_cast<std::int64_t>(*pid);
  if (auto cgroup = options.cgroup.get()) params["cgroup"] = *cgroup;
  if (auto name = options.name.get()) params["name"] = *name;
  if (auto klass = options.klass.get()) params["class"] = *klass;
  if (auto priority = options.priority.get()) params["priority"] = *priority;
  if (options.pool.given()) params["pool"] = pool_param(options.pool);
  if (auto quota = options.quota.get()) params["quota"] = parse_quota(options.quota.name(), *quota);
  if (auto budget = options.budget_mbps.get()) params["budget_mbps"] = *budget;
  return run_daemon_method(global, "workloads.register", params, options.json,
                           [](std::ostream& out, const json::value& result) {
                             const json::value* workload = field(&result, "workload");
                             out << "registered " << text(field(workload, "id")) << "\n";
                             if (workload != nullptr) render_workload(out, *workload);
                           });
}

int run_update(const GlobalOptions& global, const WorkloadsOptions& options) {
  json::object params{{"id", options.update_id.required()}};
  params["pool"] = pool_param(options.update_pool);
  return run_daemon_method(global, "workloads.update", params, options.json,
                           [](std::ostream& out, const json::value& result) {
                             const json::value* workload = field(&result, "workload");
                             out << "updated " << text(field(workload, "id")) << "\n";
                             if (workload != nullptr) render_workload(out, *workload);
                           });
}

int run_unregister(const GlobalOptions& global, const WorkloadsOptions& options) {
  const json::value id = options.unregister_id.required();
  return run_daemon_method(
      global, "workloads.unregister", json::object{{"id", id}}, options.json,
      [&id](std::ostream& out, const json::value& result) {
        const json::value* removed = field(&result, "removed");
        out << "unregistered " << (removed != nullptr ? dropped_name(removed) : text(&id)) << "\n";
      });
}

}  // namespace

void add_workloads_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<WorkloadsOptions>();
  CLI::App* cmd =
      app.add_subcommand("workloads", "List, register and unregister the workloads tierd manages");
  cmd->require_subcommand(0, 1);
  cmd->footer(
      "Without a subcommand: `list`. Workloads come from the API (register), from children of\n"
      "watched cgroups and from process-name rules in tierd's configuration; RESIDENT and FAST\n"
      "(share of resident bytes on the fastest tier) are from tierd's last sampling epoch, \"-\"\n"
      "before it (docs/api.md, workloads.*).\n\n"
      "Examples:\n"
      "  tierctl workloads\n"
      "  tierctl workloads register --pid 1234 --class online --quota 8G\n"
      "  tierctl workloads register --cgroup /batch.slice --class offline --quota 25%\n"
      "  tierctl workloads unregister pid:1234");
  cmd->add_flag("--json", options->json, "Print the workloads.list result as is (docs/api.md)");

  set_usage(*cmd, "tierctl workloads [list|register|update|unregister] [OPTIONS]");
  CLI::App* list = cmd->add_subcommand("list", "List workloads and the recently dropped ones");
  set_usage(*list, "tierctl workloads list [--json]");
  list->add_flag("--json", options->json, "Print the workloads.list result as is (docs/api.md)");
  list->callback([&global, &action, options] {
    action = [&global, options] { return run_list(global, *options); };
  });

  CLI::App* reg = cmd->add_subcommand("register", "Hand a process or a cgroup to tierd");
  reg->footer(
      "Exactly one of --pid or --cgroup. tierd checks the rest (the pid exists, the pool and\n"
      "quota are valid) and prints the workload as stored.\n\n"
      "Examples:\n"
      "  tierctl workloads register --pid 1234 --name redis --class online --priority 10\n"
      "  tierctl workloads register --cgroup /batch.slice --class offline --quota 25%");
  set_usage(*reg, "tierctl workloads register (--pid PID | --cgroup PATH) [OPTIONS]");
  CLI::Option_group* target = reg->add_option_group("target", "What to register (exactly one)");
  add_pid_option(*target, "--pid", options->pid, "A process id");
  add_text_option(*target, "--cgroup", options->cgroup, "PATH",
                  "A cgroup v2 path, e.g. /batch.slice");
  target->require_option(1);
  add_text_option(*reg, "--name", options->name, "NAME", "Name shown in lists");
  add_choice_option(*reg, "--class", options->klass, {"online", "offline", "default"},
                    "Service class: online, offline or default");
  add_integer_option(*reg, "--priority", options->priority, -kMaxPriority, kMaxPriority,
                     "Priority within the class, -1000 to 1000");
  add_text_option(*reg, "--pool", options->pool, "POOL",
                  "CPU pool: shared, numa:N, immovable:K or exclusive:K (docs/pools.md)");
  add_text_option(*reg, "--quota", options->quota, "SIZE|PCT",
                  "Fast-tier quota: bytes (8G, 512M) or a share (25%)");
  add_count_option(*reg, "--budget-mbps", options->budget_mbps, 0, kMaxBudgetMbps,
                   "Migration budget for this workload in MB/s, 0 to 100000, within the "
                   "policy's (0: none)")
      ->type_name("MBPS");
  reg->add_flag("--json", options->json, "Print the workloads.register result as is");
  reg->callback([&global, &action, options] {
    action = [&global, options] { return run_register(global, *options); };
  });

  CLI::App* update = cmd->add_subcommand("update", "Change a registered workload's pool, live");
  update->footer(
      "Moves a workload registered over the API to another pool without restarting it: an\n"
      "exclusive or immovable claim keeps the CPUs it holds and grows next to them (or shrinks\n"
      "from its end); no other workload is moved onto its CPUs. A change tierd cannot meet is\n"
      "refused and nothing moves. Rule and watch workloads take their pool from the config.\n\n"
      "Examples:\n"
      "  tierctl workloads update pid:1234 --pool exclusive:2\n"
      "  tierctl workloads update 1234 --pool shared");
  set_usage(*update, "tierctl workloads update ID|PID --pool POOL [--json]");
  add_value_option<json::value>(*update, "ID", options->update_id, parse_workload_id, "ID|PID",
                                "Workload id or pid")
      ->required();
  add_text_option(*update, "--pool", options->update_pool, "POOL",
                  "New CPU pool: shared, numa:N, immovable:K or exclusive:K")
      ->required();
  update->add_flag("--json", options->json, "Print the workloads.update result as is");
  update->callback([&global, &action, options] {
    action = [&global, options] { return run_update(global, *options); };
  });

  CLI::App* unreg = cmd->add_subcommand("unregister", "Stop managing a workload");
  unreg->footer(
      "ID is a workload id as listed (pid:1234, cgroup:/batch.slice) or a pid.\n\n"
      "Examples:\n"
      "  tierctl workloads unregister pid:1234\n"
      "  tierctl workloads unregister 1234");
  set_usage(*unreg, "tierctl workloads unregister ID|PID [--json]");
  add_value_option<json::value>(*unreg, "ID", options->unregister_id, parse_workload_id, "ID|PID",
                                "Workload id or pid")
      ->required();
  unreg->add_flag("--json", options->json, "Print the workloads.unregister result as is");
  unreg->callback([&global, &action, options] {
    action = [&global, options] { return run_unregister(global, *options); };
  });

  // Runs after the subcommand's callback: no subcommand means `list`.
  cmd->callback([&global, &action, options, cmd] {
    if (cmd->get_subcommands().empty()) {
      action = [&global, options] { return run_list(global, *options); };
    }
  });
}

}  // namespace tierctl
