// `tierctl workloads`: the workloads tierd manages (list, register,
// unregister; methods workloads.* in docs/api.md).
#include <iostream>
#include <optional>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_output.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

struct WorkloadsOptions {
  bool json = false;
  // register
  std::optional<long long> pid;
  std::string cgroup;
  std::optional<std::string> name;
  std::optional<std::string> klass;
  std::optional<long long> priority;
  std::optional<std::string> pool;
  std::optional<std::string> quota;
  std::optional<unsigned> budget_mbps;
  // unregister
  std::string id;
};

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
  if (options.pid) params["pid"] = *options.pid;
  if (!options.cgroup.empty()) params["cgroup"] = options.cgroup;
  if (options.name) params["name"] = *options.name;
  if (options.klass) params["class"] = *options.klass;
  if (options.priority) params["priority"] = *options.priority;
  if (options.pool) params["pool"] = *options.pool;
  if (options.quota) params["quota"] = *options.quota;
  if (options.budget_mbps) params["budget_mbps"] = *options.budget_mbps;
  return run_daemon_method(global, "workloads.register", params, options.json,
                           [](std::ostream& out, const json::value& result) {
                             const json::value* workload = field(&result, "workload");
                             out << "registered " << text(field(workload, "id")) << "\n";
                             if (workload != nullptr) render_workload(out, *workload);
                           });
}

// A bare number is a pid; the protocol takes it as a number or a string.
json::value id_param(const std::string& text) {
  if (!text.empty() && text.size() < 10 &&
      text.find_first_not_of("0123456789") == std::string::npos) {
    return std::stoll(text);
  }
  return json::value(text);
}

int run_update(const GlobalOptions& global, const WorkloadsOptions& options) {
  json::object params{{"id", id_param(options.id)}};
  if (options.pool) params["pool"] = *options.pool;
  return run_daemon_method(global, "workloads.update", params, options.json,
                           [](std::ostream& out, const json::value& result) {
                             const json::value* workload = field(&result, "workload");
                             out << "updated " << text(field(workload, "id")) << "\n";
                             if (workload != nullptr) render_workload(out, *workload);
                           });
}

int run_unregister(const GlobalOptions& global, const WorkloadsOptions& options) {
  return run_daemon_method(
      global, "workloads.unregister", json::object{{"id", id_param(options.id)}}, options.json,
      [&options](std::ostream& out, const json::value& result) {
        const json::value* removed = field(&result, "removed");
        out << "unregistered " << (removed != nullptr ? dropped_name(removed) : options.id) << "\n";
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

  CLI::App* list = cmd->add_subcommand("list", "List workloads and the recently dropped ones");
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
  CLI::Option_group* target = reg->add_option_group("target", "What to register (exactly one)");
  target->add_option("--pid", options->pid, "A process id")
      ->type_name("PID")
      ->check(CLI::PositiveNumber);
  target->add_option("--cgroup", options->cgroup, "A cgroup v2 path, e.g. /batch.slice")
      ->type_name("PATH");
  target->require_option(1);
  reg->add_option("--name", options->name, "Name shown in lists")->type_name("NAME");
  reg->add_option("--class", options->klass, "Service class: online, offline or default")
      ->type_name("CLASS")
      ->check(CLI::IsMember({"online", "offline", "default"}));
  reg->add_option("--priority", options->priority, "Priority within the class (integer)")
      ->type_name("N");
  reg->add_option("--pool", options->pool,
                  "CPU pool: shared, numa:N, immovable:K or exclusive:K (docs/pools.md)")
      ->type_name("POOL");
  reg->add_option("--quota", options->quota, "Fast-tier quota: bytes (8G, 512M) or a share (25%)")
      ->type_name("SIZE|PCT");
  reg->add_option("--budget-mbps", options->budget_mbps,
                  "Migration budget for this workload in MB/s, within the policy's (0: none)")
      ->type_name("MBPS")
      ->check(CLI::Range(0, 100000));
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
  update->add_option("ID", options->id, "Workload id or pid")->type_name("ID|PID")->required();
  update
      ->add_option("--pool", options->pool,
                   "New CPU pool: shared, numa:N, immovable:K or exclusive:K")
      ->type_name("POOL")
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
  unreg->add_option("ID", options->id, "Workload id or pid")->type_name("ID|PID")->required();
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
