// tierd: the tier daemon (docs/systemd.md, docs/configuration.md, docs/api.md).
// This file is the command line; daemon.hpp is the process.
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <memory>

#include "config_check.hpp"
#include "daemon.hpp"
#include "log.hpp"
#include "service_notifier.hpp"
#include "tier/heat/report_json.hpp"
#include "tier/heat/selection.hpp"
#include "tier/policy/policy.hpp"
#include "tier/values/values.hpp"
#include "tier/version.hpp"

namespace {

// Logs a fatal error and tells the manager why tierd is exiting (shown by
// `systemctl status`). Never throws: it runs in main's last catch blocks.
int report_failure(tierd::ServiceNotifier* notifier, const char* what, int exit_code) noexcept {
  try {
    tierd::log::error() << what;
    // Several errors come one per line; STATUS= is one line.
    const std::string first(what, std::strcspn(what, "\n"));
    if (notifier != nullptr) {
      notifier->status("failed: " + first + (what[first.size()] != '\0' ? " (and more)" : ""));
    }
  } catch (...) {
    // Out of memory while reporting: the exit code still says it failed.
  }
  return exit_code;
}

void list_policies(std::ostream& out) {
  for (const tier::policy::PolicyInfo& info : tier::policy::registered_policies()) {
    out << info.name << "  " << info.description << "\n";
    if (info.params.empty()) out << "    (no parameters)\n";
    for (const tier::policy::ParamSpec& spec : info.params) {
      out << "    " << spec.name << " = " << tier::values::plain(spec.default_value) << "  ["
          << tier::values::plain(spec.min) << ", " << tier::values::plain(spec.max) << "]  "
          << spec.description << "\n";
    }
  }
}

int tierd_main(int argc, char** argv) {
  CLI::App app{
      "tierd - the tier daemon: tiered-memory placement and CPU pools.\n"
      "Without --config it runs on the embedded default configuration (--print-default-config\n"
      "shows it; docs/configuration.md documents every key). tierctl talks to it over the\n"
      "control socket (docs/api.md); Prometheus scrapes it (docs/metrics.md).\n"
      "SIGHUP re-reads the configuration; SIGTERM/SIGINT stop and restore every kernel\n"
      "setting tierd changed.",
      "tierd"};
  app.set_version_flag("--version", std::string("tierd ") + tier::kVersion);
  app.failure_message(CLI::FailureMessage::help);
  app.footer(
      "Examples:\n"
      "  tierd --foreground                                    (embedded config, as `make run`)\n"
      "  tierd --config /etc/tier/tierd.toml --check-config    (validate, print the verdict)\n"
      "  tierd --socket /tmp/t.sock --metrics off --state /tmp/t.json   (a second instance)");
  tierd::Options options;
  app.add_option("--config", options.config_path, "TOML configuration file (default: embedded)")
      ->type_name("FILE");
  app.add_option("--socket", options.socket, "Control socket path (overrides [daemon] socket)")
      ->type_name("PATH");
  app.add_option("--metrics", options.metrics,
                 "Prometheus listen address or off (overrides [metrics] listen)")
      ->type_name("ADDR:PORT|off");
  app.add_option("--state", options.state, "State file (overrides [daemon] state)")
      ->type_name("PATH");
  app.add_flag("--foreground", options.foreground,
               "Stay in the foreground (the only mode: systemd's Type=notify expects it)");
  app.add_flag("--status-line", options.status_line,
               "Print a one-line status on stdout every policy tick (make run)");
  app.add_flag("--check-config", options.check_config,
               "Validate the configuration, its syntax and then against this machine, print the "
               "verdict and exit (0 valid, 2 not; warnings are logged)");
  app.add_flag("--print-default-config", options.print_default_config,
               "Print the embedded default configuration and exit");
  app.add_flag("--list-policies", options.list_policies,
               "List the placement policies with their parameters and exit");
  app.add_flag("--list-sources", options.list_sources,
               "List the heat sources this machine offers (and why not) and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // Command output stays on stdout; diagnostics go through the log on stderr.
  if (options.print_default_config) {
    std::cout << tierd::embedded_default_config();
    return 0;
  }
  if (options.list_policies) {
    list_policies(std::cout);
    return 0;
  }
  if (options.list_sources) {
    tier::heat::print_heat_sources(std::cout, tier::heat::probe_sources(options.root));
    return 0;
  }
  std::unique_ptr<tierd::ServiceNotifier> notifier;
  try {
    notifier = tierd::make_systemd_notifier();
    tierd::ConfigSource source;
    tierd::Config config = tierd::load_config(options, &source);
    // Against the machine: warnings logged, errors stop here (exit 2) before
    // anything is changed.
    const tierd::ConfigCheck check = tierd::check_config(config, source, options.root);
    tierd::enforce(check);
    if (options.check_config) {
      const std::size_t warnings = check.warnings().size();
      std::cout << "tierd: " << options.describe_origin() << " is valid";
      // The warnings themselves went to the log (stderr) at warning level.
      if (warnings > 0) {
        std::cout << ", with " << warnings << " warning" << (warnings > 1 ? "s" : "");
      }
      std::cout << "\n";
      return 0;
    }
    return tierd::Daemon(options, std::move(config), *notifier).run();
  } catch (const tierd::ConfigError& e) {
    return report_failure(notifier.get(), e.what(), 2);
  } catch (const std::exception& e) {
    return report_failure(notifier.get(), e.what(), 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return tierd_main(argc, argv);
  } catch (...) {
    // Only argument parsing set-up (CLI11) can get here: nothing to report to.
    return 1;
  }
}
