// `tierctl status`: what the running tierd is doing (the `status` method,
// docs/api.md): state, policy ticks, workloads, nodes, kernel settings it
// changed, its configuration and the last reload.
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_output.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

struct StatusOptions {
  bool json = false;
};

std::string state_of(const json::value& status) {
  if (const json::value* state = field(&status, "state"); state != nullptr && state->is_string()) {
    return std::string(state->get_string());
  }
  if (const json::value* paused = field(&status, "paused");
      paused != nullptr && paused->is_bool()) {
    return paused->get_bool() ? "paused" : "running";
  }
  return "-";
}

void render_status(std::ostream& out, const json::value& status) {
  const json::value* daemon = field(&status, "daemon");
  out << (daemon != nullptr && daemon->is_string() ? text(daemon) : std::string("tierd"));
  if (const json::value* version = field(&status, "version")) out << " " << text(version);
  out << ": " << state_of(status) << ", pid " << text(field(&status, "pid"));
  if (auto uptime = number(field(&status, "uptime_s"))) out << ", up " << human_duration(*uptime);
  out << "\n";

  const json::value* policy = field(&status, "policy");
  out << "policy:      " << text(field(policy, "name"));
  if (policy != nullptr && policy->is_object()) {
    out << " (" << text(field(policy, "ticks")) << " ticks, last tick "
        << text(field(policy, "last_tick_ms")) << " ms, " << text(field(policy, "planned_moves"))
        << " planned moves)";
  }
  out << "\n";
  if (const json::value* epochs = field(&status, "epochs")) {
    out << "epochs:      " << text(epochs) << "\n";
  }

  const json::value* workloads = field(&status, "workloads");
  out << "workloads:   " << text(field(workloads, "count")) << " (online "
      << text(field(workloads, "online")) << ", offline " << text(field(workloads, "offline"))
      << ", default " << text(field(workloads, "default")) << "), "
      << text(field(workloads, "dropped_total")) << " dropped\n";

  const json::array& nodes = elements(field(&status, "nodes"));
  out << "nodes:";
  if (nodes.empty()) out << "       -";
  out << "\n";
  if (!nodes.empty()) {
    Table table({"node", "tier", "free", "total"}, {0, 1, 2, 3});
    for (const json::value& node : nodes) {
      table.add({text(field(&node, "id")), text(field(&node, "tier")),
                 human_bytes(field(&node, "free_bytes")),
                 human_bytes(field(&node, "total_bytes"))});
    }
    table.print(out, "  ");
  }

  const json::value* kernel = field(&status, "kernel");
  if (kernel != nullptr && kernel->is_object() && !kernel->get_object().empty()) {
    out << "kernel settings changed (original -> applied, restored on stop):\n";
    for (const auto& setting : kernel->get_object()) {
      out << "  " << setting.key() << ": " << text(field(&setting.value(), "original")) << " -> "
          << text(field(&setting.value(), "applied")) << "\n";
    }
  } else {
    out << "kernel settings changed: none\n";
  }

  const json::value* config = field(&status, "config");
  out << "config:      " << text(field(config, "origin")) << "\n";
  out << "  socket:    " << text(field(config, "socket")) << "\n";
  out << "  state:     " << text(field(config, "state")) << "\n";
  out << "  metrics:   " << text(field(config, "metrics")) << "\n";

  const json::value* reload = field(&status, "last_reload");
  out << "last reload: ";
  if (reload == nullptr || reload->is_null()) {
    out << "-\n";
  } else {
    const json::value* ok = field(reload, "ok");
    out << (ok != nullptr && ok->is_bool() ? (ok->get_bool() ? "ok" : "failed") : "-") << ", "
        << text(field(reload, "message")) << " (" << utc_time(field(reload, "unix_s")) << ")\n";
  }
}

}  // namespace

void add_status_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<StatusOptions>();
  CLI::App* cmd = app.add_subcommand("status", "Show what the running tierd is doing");
  cmd->footer(
      "Asks tierd (--socket) for its state (running or paused), uptime, policy ticks,\n"
      "workload counts, per-node free/total memory, the kernel settings it changed (original ->\n"
      "applied), its configuration and the last reload (docs/api.md, status).\n\n"
      "Examples:\n"
      "  tierctl status\n"
      "  tierctl status --json | jq .workloads\n"
      "  tierctl --socket /tmp/tierd.sock status");
  cmd->add_flag("--json", options->json, "Print the status result as is (docs/api.md)");
  cmd->callback([&global, &action, options] {
    action = [&global, options] {
      return run_daemon_method(global, "status", nullptr, options->json, render_status);
    };
  });
}

}  // namespace tierctl
