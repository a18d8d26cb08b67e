// tierd: the tier daemon. For now it loads the topology, logs it and serves
// it on the control socket; placement, pools and metrics arrive with later
// issues. Under systemd (daemon/tierd.service, docs/systemd.md) it reports
// readiness, status, reloads and shutdown with sd_notify and kicks the
// watchdog from its event loop. Signals: SIGHUP re-reads the configuration
// (a bad file keeps the running one), SIGTERM/SIGINT stop gracefully.
#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "config.hpp"
#include "control_server.hpp"
#include "log.hpp"
#include "service_notifier.hpp"
#include "tier/topology.hpp"
#include "tier/topology_json.hpp"
#include "tier/topology_text.hpp"
#include "tier/version.hpp"

namespace {

struct Options {
  std::string config_path;
  std::string socket;
  bool foreground = false;
  bool check_config = false;
  bool print_default_config = false;
};

std::string config_origin(const Options& options) {
  return options.config_path.empty() ? "<embedded>" : options.config_path;
}

tierd::Config load(const Options& options) {
  tierd::Config config = options.config_path.empty()
                             ? tierd::parse_config(tierd::embedded_default_config(), "<embedded>")
                             : tierd::load_config_file(options.config_path);
  if (!options.socket.empty()) config.socket = options.socket;
  return config;
}

void apply_log_level(const tierd::Config& config) {
  // parse_config already rejected any other word, so the fallback never hits.
  tierd::log::set_level(
      tierd::log::parse_level(config.log_level).value_or(tierd::log::Level::info));
}

tier::Topology load_topology(const tierd::Config& config) {
  tier::TopologyOptions topo_options;
  topo_options.root = tier::SysRoot(config.topology_root);
  topo_options.tier_override = config.tier_override;
  return tier::load_topology(topo_options);
}

std::string describe(const std::map<unsigned, unsigned>& overrides) {
  std::string text = "{";
  for (const auto& [node, rank] : overrides) {
    if (text.size() > 1) text += ", ";
    text += std::to_string(node) + "=" + std::to_string(rank);
  }
  return text + "}";
}

// One "key: old -> new" line per setting that differs, for the reload log.
std::vector<std::string> config_changes(const tierd::Config& before, const tierd::Config& after) {
  std::vector<std::string> changes;
  auto compare = [&changes](const char* key, const std::string& old_value,
                            const std::string& new_value) {
    if (old_value != new_value)
      changes.push_back(std::string(key) + ": " + old_value + " -> " + new_value);
  };
  compare("daemon.socket", before.socket, after.socket);
  compare("daemon.log_level", before.log_level, after.log_level);
  compare("topology.root", before.topology_root, after.topology_root);
  compare("topology.tier_override", describe(before.tier_override), describe(after.tier_override));
  return changes;
}

std::string summary(const tier::Topology& topology) {
  return std::to_string(topology.nodes().size()) + " node(s), " +
         std::to_string(topology.memory_tiers().size()) + " memory tier(s)";
}

class Daemon {
 public:
  Daemon(const Options& options, tierd::Config config, tierd::ServiceNotifier& notifier)
      : options_(options),
        config_(std::move(config)),
        notifier_(notifier),
        // Registered before anything slow: a SIGTERM during start-up must
        // take the graceful path, not the default action.
        signals_(io_, SIGINT, SIGTERM, SIGHUP),
        watchdog_(io_, notifier) {}

  int run() {
    wait_for_signal();
    // Kicks start before the (possibly slow) topology load: the manager's
    // watchdog clock runs from READY=1 only, but kicking early is harmless.
    if (auto period = watchdog_.start()) {
      tierd::log::info() << "watchdog: kicking every " << period->count() / 1000 << " ms";
    }
    topology_ = std::make_shared<const tier::Topology>(load_topology(config_));
    log_topology();

    server_ = std::make_unique<tierd::ControlServer>(io_, config_.socket);
    server_->add_method("topology",
                        [this](const boost::json::value&) { return tier::to_json(*topology_); });
    server_->add_method("status", [](const boost::json::value&) {
      return boost::json::value{
          {"daemon", "tierd"}, {"version", tier::kVersion}, {"state", "running"}};
    });
    server_->start();
    tierd::log::info() << "serving on " << server_->path()
                       << " (SIGTERM/Ctrl-C stops, SIGHUP reloads; try `tierctl --socket "
                       << server_->path() << " topo --daemon`)";
    notifier_.ready(serving_status(""));
    io_.run();
    return 0;
  }

 private:
  void wait_for_signal() {
    signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      if (signal == SIGHUP) {
        reload();
        wait_for_signal();
        return;
      }
      stop(signal);
    });
  }

  void stop(int signal) {
    notifier_.stopping();
    notifier_.status("stopping (signal " + std::to_string(signal) + ")");
    tierd::log::info() << "signal " << signal << ", stopping";
    watchdog_.stop();
    if (server_) server_->stop();
    io_.stop();
  }

  // Everything is built from the new file first and committed only when all
  // of it succeeded, so a bad file or an unreadable topology root leaves the
  // daemon exactly as it was.
  void reload() {
    notifier_.reloading();
    const std::string origin = config_origin(options_);
    tierd::log::info() << "SIGHUP: reloading configuration " << origin;
    std::string note;
    try {
      tierd::Config next = load(options_);
      auto topology = std::make_shared<const tier::Topology>(load_topology(next));
      std::vector<std::string> changes = config_changes(config_, next);
      for (const std::string& change : changes) tierd::log::info() << "reload: " << change;
      if (changes.empty()) tierd::log::info() << "reload: configuration unchanged";
      if (next.socket != server_->path()) {
        // Rebinding would drop connected clients mid-request; the new path
        // takes effect at the next start (the unit's restart).
        tierd::log::warn() << "reload: daemon.socket " << next.socket
                           << " takes effect on restart; still serving on " << server_->path();
      }
      apply_log_level(next);
      if (summary(*topology) != summary(*topology_)) {
        tierd::log::info() << "reload: topology now " << summary(*topology) << " (was "
                           << summary(*topology_) << ")";
      }
      topology_ = std::move(topology);
      config_ = std::move(next);
      // After apply_log_level: shows up exactly when the new level allows it.
      tierd::log::debug() << "reload: topology re-read, " << summary(*topology_);
      note = "configuration reloaded";
    } catch (const std::exception& e) {
      // ConfigError messages already name file:line and key.
      tierd::log::error() << "reload failed, keeping the running configuration: " << e.what();
      note = "reload failed (" + std::string(e.what()) + "), running configuration kept";
    }
    notifier_.ready(serving_status(note));
  }

  std::string serving_status(const std::string& note) const {
    std::string text = "serving on " + server_->path() + "; " + summary(*topology_);
    if (!note.empty()) text += "; " + note;
    return text;
  }

  void log_topology() const {
    std::ostringstream text;
    tier::render_topology(text, *topology_);
    std::string rendered = text.str();
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    tierd::log::info() << "topology: " << summary(*topology_) << "\n" << rendered;
  }

  const Options& options_;
  tierd::Config config_;
  tierd::ServiceNotifier& notifier_;
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  tierd::WatchdogKicker watchdog_;
  std::shared_ptr<const tier::Topology> topology_;
  std::unique_ptr<tierd::ControlServer> server_;
};

// Logs a fatal error and tells the manager why tierd is exiting (shown by
// `systemctl status`). Never throws: it runs in main's last catch blocks.
int report_failure(tierd::ServiceNotifier* notifier, const char* what, int exit_code) noexcept {
  try {
    tierd::log::error() << what;
    if (notifier != nullptr) notifier->status(std::string("failed: ") + what);
  } catch (...) {
    // Out of memory while reporting: the exit code still says it failed.
  }
  return exit_code;
}

int tierd_main(int argc, char** argv) {
  CLI::App app{
      "tierd - the tier daemon: tiered-memory placement and CPU pools.\n"
      "Without --config it runs on the embedded default configuration.\n"
      "SIGHUP re-reads the configuration; SIGTERM/SIGINT stop.",
      "tierd"};
  app.set_version_flag("--version", std::string("tierd ") + tier::kVersion);
  app.failure_message(CLI::FailureMessage::help);
  Options options;
  app.add_option("--config", options.config_path, "TOML configuration file (default: embedded)")
      ->type_name("FILE");
  app.add_option("--socket", options.socket, "Control socket path (overrides the config)")
      ->type_name("PATH");
  app.add_flag("--foreground", options.foreground,
               "Stay in the foreground (the only mode: systemd's Type=notify expects it)");
  app.add_flag("--check-config", options.check_config, "Validate the configuration and exit");
  app.add_flag("--print-default-config", options.print_default_config,
               "Print the embedded default configuration and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // Command output (the default config, the check verdict) stays on stdout;
  // diagnostics go through the log on stderr.
  if (options.print_default_config) {
    std::cout << tierd::embedded_default_config();
    return 0;
  }
  std::unique_ptr<tierd::ServiceNotifier> notifier;
  try {
    notifier = tierd::make_systemd_notifier();
    tierd::Config config = load(options);
    if (options.check_config) {
      std::cout << "tierd: configuration " << config_origin(options) << " is valid\n";
      return 0;
    }
    apply_log_level(config);
    return Daemon(options, std::move(config), *notifier).run();
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
