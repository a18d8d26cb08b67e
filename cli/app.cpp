// The shared tierctl app (see app.hpp).
#include "app.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "daemon_client.hpp"
#include "error_output.hpp"
#include "tier/values/values.hpp"
#include "tier/version.hpp"
#include "usage.hpp"

namespace tierctl {

namespace {

namespace values = tier::values;

bool given(const CLI::App& app, const char* name) {
  const CLI::Option* option = app.get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}

/// The global paths as the user gave them: --root a directory, --hwloc-xml
/// a file, --socket a socket when something is there (nothing there is
/// "tierd is not running", a failure, not bad input).
void check_globals(const CLI::App& app, const GlobalOptions& global) {
  if (given(app, "--root")) {
    values::require_path("--root", global.root, values::PathKind::directory);
  } else if (std::getenv("TIER_ROOT") != nullptr) {
    values::require_path("$TIER_ROOT", global.root, values::PathKind::directory);
  }
  if (given(app, "--hwloc-xml")) {
    values::require_path("--hwloc-xml", global.hwloc_xml, values::PathKind::file);
  }
  std::error_code ec;
  if (given(app, "--socket") &&
      (global.socket.empty() || std::filesystem::exists(global.socket, ec))) {
    values::require_path("--socket", global.socket, values::PathKind::socket);
  }
}

/// --json was asked for a command that has it (or before any command was
/// recognised): errors then also go to stdout as JSON. Words after `--`
/// belong to `run`'s command.
bool wants_json(const CLI::App& command, int argc, char** argv) {
  if (command.get_parent() != nullptr && command.get_option_no_throw("--json") == nullptr) {
    return false;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--json" || arg.starts_with("--json=")) return true;
  }
  return false;
}

/// An error in how `command` was used or in a value given to it (exit 2).
ErrorReport usage_report(const CLI::App& command, const char* code, std::string message) {
  return {kUsage,
          code,
          command_path(command),
          std::move(message),
          usage_line(command),
          command_path(command)};
}

ErrorReport failure_report(std::string code, std::string message, int exit_code = kFailure) {
  return {exit_code, std::move(code), "tierctl", std::move(message), "", ""};
}

}  // namespace

std::unique_ptr<CLI::App> make_app(GlobalOptions& global) {
  auto app = std::make_unique<CLI::App>(
      "tierctl - inspect and control tier, the tiered-memory placement and CPU-pinning runtime.\n"
      "Reads the live machine by default; --root and --hwloc-xml read a gathered sysfs tree or\n"
      "an lstopo XML export instead.",
      "tierctl");
  // Before any subcommand: they inherit the formatter, whose usage lines
  // are the ones set_usage() registers.
  app->formatter(make_usage_formatter());
  set_usage(*app, "tierctl [--root DIR] [--hwloc-xml FILE] [--socket PATH] COMMAND [OPTIONS]");
  app->set_version_flag("--version", std::string("tierctl ") + tier::kVersion);
  app->require_subcommand(1);
  app->fallthrough();

  if (const char* env = std::getenv("TIER_ROOT"); env != nullptr) global.root = env;
  app->add_option(
         "--root", global.root,
         "Read every /sys and /proc file under DIR (a gathered sysfs tree); also $TIER_ROOT")
      ->type_name("DIR");
  app->add_option("--hwloc-xml", global.hwloc_xml, "Load the topology from an lstopo XML export")
      ->type_name("FILE");
  app->add_option("--socket", global.socket, "tierd control socket")
      ->type_name("PATH")
      ->capture_default_str();
  return app;
}

int parse_and_run(CLI::App& app, const GlobalOptions& global, const Action& action, int argc,
                  char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App& failing = selected_command(app);
    return print_error(usage_report(failing, "bad_usage", explain_parse_error(app, failing, e)),
                       wants_json(failing, argc, argv));
  }
  const CLI::App& command = selected_command(app);
  const bool json = wants_json(command, argc, argv);
  try {
    check_globals(app, global);
    return action ? action() : kUsage;
  } catch (const values::ValueError& e) {
    return print_error(usage_report(command, "bad_input", e.what()), json);
  } catch (const UsageError& e) {
    return print_error(usage_report(command, "bad_input", e.what()), json);
  } catch (const tier::TopologyError& e) {
    return print_error(usage_report(command, "bad_input", e.what()), json);
  } catch (const DaemonUnreachable& e) {
    return print_error(failure_report("daemon_unreachable", e.what()), json);
  } catch (const DaemonError& e) {
    return print_error(
        failure_report(e.code().empty() ? "failed" : e.code(), describe(e), exit_code(e)), json);
  } catch (const Failure& e) {
    return print_error(failure_report(e.code, e.what()), json);
  } catch (const CLI::OptionNotFound& e) {
    // A bug: the code looked up an option it never registered ("--x not found").
    const std::string what = e.what();
    return print_error(failure_report("failed", "internal error: tierctl looked up option " +
                                                    what.substr(0, what.find(' ')) +
                                                    ", which it never registered"),
                       json);
  } catch (const std::exception& e) {
    return print_error(failure_report("failed", std::string("error: ") + e.what()), json);
  }
}

}  // namespace tierctl
