// `tierctl pause`, `tierctl resume` and `tierctl reload`: the daemon-wide
// switches (methods pause, resume, reload in docs/api.md). None takes
// parameters; all need root or group `tier`.
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_output.hpp"
#include "tier/json/json_text.hpp"
#include "usage.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

void render_paused(std::ostream& out, const json::value& result) {
  const json::value* paused = field(&result, "paused");
  if (paused == nullptr || !paused->is_bool()) {
    out << "tierd replied: " << tier::json_text(result) << "\n";
  } else if (paused->get_bool()) {
    out << "tierd paused: no more page migration; sampling goes on (`tierctl resume` to undo)\n";
  } else {
    out << "tierd resumed: migrating pages again\n";
  }
}

void render_reload(std::ostream& out, const json::value& result) {
  const json::array& changes = elements(field(&result, "changes"));
  out << "configuration reloaded: ";
  if (changes.empty()) {
    out << "no changes\n";
    return;
  }
  out << changes.size() << (changes.size() == 1 ? " change" : " changes") << "\n";
  for (const json::value& change : changes) out << "  " << text(&change) << "\n";
}

void add_simple(CLI::App& app, const GlobalOptions& global, Action& action, const char* name,
                const char* description, const char* footer,
                void (*render)(std::ostream&, const json::value&)) {
  auto json_output = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->footer(footer);
  set_usage(*cmd, std::string("tierctl ") + name + " [--json]");
  cmd->add_flag("--json", *json_output, std::string("Print the ") + name + " result as is");
  cmd->callback([&global, &action, json_output, name, render] {
    action = [&global, json_output, name, render] {
      return run_daemon_method(global, name, nullptr, *json_output, render);
    };
  });
}

}  // namespace

void add_pause_commands(CLI::App& app, const GlobalOptions& global, Action& action) {
  add_simple(app, global, action, "pause", "Stop tierd migrating pages (sampling goes on)",
             "Workloads stay registered and tierd keeps sampling, so `tierctl workloads` and\n"
             "`tierctl status` stay current; `tierctl resume` starts migrating again.\n\n"
             "Examples:\n"
             "  tierctl pause\n"
             "  tierctl pause --json",
             render_paused);
  add_simple(app, global, action, "resume", "Let tierd migrate pages again after `pause`",
             "Examples:\n"
             "  tierctl resume",
             render_paused);
  add_simple(
      app, global, action, "reload", "Make tierd re-read its configuration file (like SIGHUP)",
      "Prints the settings that changed. A file with errors is refused and tierd keeps\n"
      "running with its current configuration; the reason is printed and tierctl exits 1.\n\n"
      "Examples:\n"
      "  tierctl reload\n"
      "  tierctl reload --json | jq -r '.changes[]'",
      render_reload);
}

}  // namespace tierctl
