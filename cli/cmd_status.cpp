// `tierctl status`: what the running tierd is doing (the `status` method,
// docs/api.md): state, policy ticks, workloads, nodes, kernel settings it
// changed, its configuration and the last reload.
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_output.hpp"
#include "usage.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

struct StatusOptions {
  bool json = false;
  bool all_workloads = false;
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

// Node memory that changed under tierd (docs/topology.md, "Memory hotplug"):
// how often, and the last change with the topology it left. Nothing when
// there was none (or the daemon does not report it).
void render_topology_change(std::ostream& out, const json::value& status) {
  const json::value* count = field(&status, "topology_changes");
  const json::value* last = field(&status, "last_topology_change");
  if (count == nullptr || !count->is_number() || last == nullptr || !last->is_object()) return;
  std::string nodes;
  for (const json::value& line : elements(field(last, "nodes"))) {
    nodes += (nodes.empty() ? "" : "; ") + text(&line);
  }
  out << "  node memory changed " << text(count) << " time(s) under tierd; last: " << nodes
      << " (topology now " << text(field(last, "topology")) << ")\n";
}

// "discovery:   auto, 12 found at 64 MiB or more among 340 processes".
void render_discovery(std::ostream& out, const json::value* discovery) {
  if (discovery == nullptr || !discovery->is_object()) return;
  out << "discovery:   " << text(field(discovery, "mode"));
  const json::value* active = field(discovery, "active");
  const json::value* idle = field(discovery, "idle_reason");
  if (idle != nullptr && idle->is_string() && !idle->get_string().empty()) {
    out << ", idle: " << text(idle);
  } else if (active != nullptr && active->is_bool() && active->get_bool()) {
    const json::value* by_cgroup = field(discovery, "by_cgroup");
    const bool cgroups = by_cgroup != nullptr && by_cgroup->is_bool() && by_cgroup->get_bool();
    out << ", " << text(field(discovery, "found")) << " found at "
        << human_bytes(field(discovery, "min_bytes")) << " or more among "
        << text(field(discovery, cgroups ? "cgroups" : "processes"))
        << (cgroups ? " leaf cgroups" : " processes");
  }
  out << "\n";
}

// Per workload: where its memory is, how much of it (and of its sampled
// accesses) is on the fast tier, what tierd moved and why.
void render_placement(std::ostream& out, const json::value* placement) {
  if (placement == nullptr || !placement->is_object()) return;
  out << "placement:   kernel_tiering " << text(field(placement, "kernel_tiering"))
      << ", heat source " << text(field(placement, "heat_source")) << ", "
      << text(field(placement, "moves_executed")) << " move batches carried out, "
      << text(field(placement, "moves_withheld")) << " planned moves withheld";
  const json::value* withheld = field(placement, "last_withheld_reason");
  if (withheld != nullptr && withheld->is_string() && !withheld->get_string().empty()) {
    out << " (last: " << text(withheld) << ")";
  }
  out << "\n";
  const json::value* why = field(placement, "kernel_tiering_why");
  if (why != nullptr && why->is_string() && !why->get_string().empty()) {
    out << "  " << text(why) << "\n";
  }
  // Which source "auto" resolves to here, and why the ones before it were not.
  if (text(field(placement, "heat_source")) == "auto") {
    const std::string picked = text(field(placement, "heat_source_picked"));
    out << "  heat source auto " << (picked == "-" ? "finds none" : "picks " + picked) << ": "
        << text(field(placement, "heat_source_picked_why")) << "\n";
  }
  const json::value* kernel = field(placement, "kernel_moves_since_start");
  out << "  kernel's own moves since start: " << text(field(kernel, "promoted_pages"))
      << " pages promoted, " << text(field(kernel, "demoted_pages")) << " demoted\n";
  const json::array& workloads = elements(field(placement, "workloads"));
  if (workloads.empty()) return;
  Table table({"workload", "class", "fast", "heat on fast", "tier 0", "lower tiers", "promoted",
               "demoted", "heat source"},
              {2, 3, 4, 5, 6, 7});
  for (const json::value& w : workloads) {
    double lower = 0;
    const json::value* tiers = field(&w, "resident_bytes_by_tier");
    if (tiers != nullptr && tiers->is_object()) {
      for (const auto& tier : tiers->get_object()) {
        if (tier.key() != "0") lower += number(&tier.value()).value_or(0);
      }
    }
    const json::value* source = field(&w, "heat_source");
    table.add(
        {text(field(&w, "name")) + " (" + text(field(&w, "id")) + ")", text(field(&w, "class")),
         percent(field(&w, "fast_share")), percent(field(&w, "heat_fast_share")),
         human_bytes(field(field(&w, "resident_bytes_by_tier"), "0")), human_bytes(lower),
         human_bytes(field(&w, "promoted_bytes")), human_bytes(field(&w, "demoted_bytes")),
         source != nullptr && source->is_string() && !source->get_string().empty() ? text(source)
                                                                                   : "-"});
  }
  table.print(out, "  ");
  if (const std::optional<double> omitted = number(field(placement, "workloads_omitted"));
      omitted && *omitted > 0) {
    out << "  (and " << text(field(placement, "workloads_omitted"))
        << " smaller discovered workloads: tierctl status --all-workloads, tierctl workloads)\n";
  }
  for (const json::value& w : workloads) {
    if (const json::value* error = field(&w, "heat_error")) {
      out << "  " << text(field(&w, "id")) << ": no heat: " << text(error) << "\n";
    }
    const json::array& reasons = elements(field(&w, "last_reasons"));
    if (reasons.empty()) continue;
    out << "  " << text(field(&w, "id")) << " last moves:\n";
    for (const json::value& reason : reasons) out << "    " << text(&reason) << "\n";
  }
}

// After the state path: what tierd found in the file at start and how its
// writes went ("loaded, 3 workloads recovered; 14 writes"), then the
// problem and the last failed write when there are any.
void render_state_file(std::ostream& out, const json::value* file) {
  if (file == nullptr || !file->is_object()) {
    out << "\n";
    return;
  }
  const auto has_text = [&](const char* key) {
    const json::value* value = field(file, key);
    return value != nullptr && value->is_string() && !value->get_string().empty();
  };
  out << " (" << text(field(file, "found"));
  if (text(field(file, "found")) == "loaded") {
    out << ", " << text(field(file, "recovered_workloads")) << " workloads recovered";
  }
  out << "; " << text(field(file, "writes")) << " writes";
  if (text(field(file, "write_failures")) != "0") {
    out << ", " << text(field(file, "write_failures")) << " failed";
  }
  out << ")\n";
  if (has_text("problem")) {
    out << "    problem: " << text(field(file, "problem"));
    if (has_text("kept_as")) out << "; kept as " << text(field(file, "kept_as"));
    out << "\n";
  }
  if (has_text("last_write_error")) {
    out << "    last failed write: " << text(field(file, "last_write_error")) << " ("
        << utc_time(field(file, "last_write_error_unix_s")) << ")\n";
  }
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
    const json::value* idle = field(policy, "idle_reason");
    if (idle != nullptr && idle->is_string() && !idle->get_string().empty()) {
      out << "\n  plans nothing here: " << text(idle);
    }
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
  render_discovery(out, field(&status, "discovery"));

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
    std::string unplaceable;
    for (const json::value& node : nodes) {
      const json::value* placeable = field(&node, "placeable");
      if (placeable != nullptr && placeable->is_bool() && !placeable->as_bool()) {
        unplaceable += (unplaceable.empty() ? "" : ", ") + text(field(&node, "id"));
      }
    }
    if (!unplaceable.empty())
      out << "  no target (no memory, or not ranked): " << unplaceable << "\n";
  }
  render_topology_change(out, status);

  render_placement(out, field(&status, "placement"));

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
  out << "  state:     " << text(field(config, "state"));
  render_state_file(out, field(&status, "state_file"));
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
      "workload counts, what discovery does, per-node free/total memory, who moves pages\n"
      "(kernel_tiering and why), the kernel settings it changed (original -> applied), its\n"
      "configuration and the last reload (docs/api.md, status).\n\n"
      "Examples:\n"
      "  tierctl status\n"
      "  tierctl status --json | jq .workloads\n"
      "  tierctl status --all-workloads   # every workload, not the 64 largest\n"
      "  tierctl --socket /tmp/tierd.sock status");
  set_usage(*cmd, "tierctl status [--json] [--all-workloads]");
  cmd->add_flag("--json", options->json, "Print the status result as is (docs/api.md)");
  cmd->add_flag("--all-workloads", options->all_workloads,
                "Detail every workload's placement (by default at most 64: every registered one "
                "and the largest discovered ones)");
  cmd->callback([&global, &action, options] {
    action = [&global, options] {
      json::value params = nullptr;
      if (options->all_workloads) params = json::object{{"all_workloads", true}};
      return run_daemon_method(global, "status", params, options->json, render_status);
    };
  });
}

}  // namespace tierctl
