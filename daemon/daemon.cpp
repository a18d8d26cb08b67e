#include "daemon.hpp"

#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "config_check.hpp"
#include "heat_worker.hpp"
#include "log.hpp"
#include "placement/one_tier.hpp"
#include "steady_seconds.hpp"
#include "tier/topology/topology_text.hpp"
#include "tier/values/values.hpp"
#include "unix_clock.hpp"
#include "workloads/pod_overrides.hpp"
#include "workloads/state_file.hpp"

namespace tierd {

namespace {

void apply_log_level(const Config& config) {
  // parse_config already rejected any other word, so the fallback never hits.
  log::set_level(log::parse_level(config.log_level).value_or(log::Level::info));
}

// The kubepods watch of a configuration, its override file read (throws
// PodOverridesError naming file:line:key).
std::optional<KubepodsWatch> kubepods_watch(const Config& config) {
  if (config.kubepods.empty()) return std::nullopt;
  KubepodsWatch watch;
  watch.root = config.kubepods;
  if (!config.pod_overrides.empty()) {
    watch.overrides =
        std::make_shared<const PodOverrides>(PodOverrides::load(config.pod_overrides));
  }
  return watch;
}

// Several errors, one per line, as one line: "first; second".
std::string one_line(std::string text) {
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) {
    text.replace(at, 1, "; ");
  }
  return text;
}

void log_lines(const std::vector<std::string>& lines, const char* prefix) {
  for (const std::string& line : lines) log::info() << prefix << line;
}

}  // namespace

Config load_config(const Options& options, ConfigSource* source) {
  Config config = options.config_path
                      ? load_config_file(*options.config_path, source)
                      : parse_config(embedded_default_config(), "<embedded>", source);
  // A flag given empty is a mistake to show ("--socket $UNSET"), not "use
  // the file's value".
  const auto override_with = [source](const char* flag, const char* key,
                                      const std::optional<std::string>& value, const char* what,
                                      std::string& out) {
    if (!value) return;
    if (value->empty()) {
      throw ConfigError(
          tier::values::ValueError(flag, "", std::string("expected ") + what + ", got nothing")
              .what());
    }
    out = *value;
    if (source != nullptr) source->flags[key] = flag;
  };
  override_with("--socket", "daemon.socket", options.socket, "a socket path", config.socket);
  override_with("--state", "daemon.state", options.state, "a file path", config.state_path);
  override_with("--metrics", "metrics.listen", options.metrics, "ADDR:PORT or off",
                config.metrics_listen);
  if (options.metrics) {
    try {
      parse_listen_address(*options.metrics);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("--metrics '" + *options.metrics + "': " + e.what());
    }
  }
  return config;
}

Daemon::Daemon(const Options& options, Config config, ServiceNotifier& notifier)
    : options_(options),
      config_(std::move(config)),
      notifier_(notifier),
      // Registered before anything slow: a SIGTERM during start-up must take
      // the graceful path, not the default action.
      signals_(io_, SIGINT, SIGTERM, SIGHUP),
      watchdog_(io_, notifier),
      epoch_timer_(io_),
      tick_timer_(io_),
      kernel_(options.root),
      registry_(options.root) {}

Daemon::~Daemon() = default;

int Daemon::run() {
  wait_for_signal();
  // Kicks start before the (possibly slow) topology load: the manager's
  // watchdog clock runs from READY=1 only, but kicking early is harmless.
  if (auto period = watchdog_.start()) {
    log::info() << "watchdog: kicking every " << period->count() / 1000 << " ms";
  }
  try {
    start();
  } catch (...) {
    // Whatever start() changed in the kernel before failing goes back.
    log::warn_lines(kernel_.restore_all(), "kernel: ");
    throw;
  }
  io_.run();
  return 0;
}

// Discovery as the configuration asks for it; "auto" is off while the machine
// has one memory tier: no page could move, so a survey of /proc would be cost
// without use. A mode named outright still runs (residency and heat figures).
// tierd itself is never a workload.
void Daemon::configure_discovery() {
  DiscoverySettings settings;
  settings.mode = discovery_idle() ? DiscoverMode::off : config_.discover;
  settings.min_bytes = config_.discover_min_bytes;
  settings.self = ::getpid();
  registry_.configure_discovery(settings);
}

void Daemon::start() {
  const double began = steady_seconds();
  apply_log_level(config_);
  WatchedTopology read = read_watched_topology(config_);
  const double topology_s = steady_seconds() - began;
  topology_ = read.topology;
  node_watch_.reset(read.memory, read.block_bytes);
  one_tier_note_ = one_tier_note(*topology_);
  {
    std::ostringstream text;
    tier::render_topology(text, *topology_);
    std::string rendered = text.str();
    while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
    log::info() << "topology: " << topology_summary(*topology_) << "\n" << rendered;
  }
  log::warn_lines(topology_->warnings(), "topology: ");
  // The socket and the metrics port are claimed before anything is changed:
  // a second tierd started by mistake fails here, leaving the kernel
  // settings and the state file of the running one alone.
  server_ = std::make_unique<ControlServer>(io_, config_.socket);
  fd_limit_ = raise_open_file_limit();
  server_->set_max_connections(client_limit_for(fd_limit_));
  metrics_ = std::make_unique<Metrics>(parse_listen_address(config_.metrics_listen));
  if (auto address = metrics_->address()) {
    log::info() << "metrics: serving http://" << address->to_string() << "/metrics";
  } else {
    log::info() << "metrics: off";
  }

  paused_ = config_.start_paused;
  use_policy(config_.policy, config_.policy_params);
  recover_state();
  // From here on a knob's original reaches state.json before the knob
  // changes (a SIGKILL between the two must not lose it).
  kernel_.on_first_write([this] { save_state(); });
  std::vector<std::string> applied;
  log::warn_lines(kernel_.apply(with_heat_choice(config_), &applied), "kernel: ");
  log_lines(applied, "kernel: ");
  registry_.configure(config_.watches, config_.rules);
  registry_.configure_kubepods(kubepods_watch(config_));
  configure_discovery();
  configure_pools(config_);

  auto count_heat_samples = [this](const tier::heat::HeatReport& report) {
    std::vector<HeatSourceTotals> totals;
    for (const auto& run : report.sources) totals.push_back({run.name, run.counters});
    metrics_->update_heat_sources(totals);
  };
  heat_ = std::make_unique<HeatWorker>(io_, options_.root, std::move(count_heat_samples));
  // Residency is read off the loop, within its duty cycle (residency_plan.hpp).
  residency_scanner_ = std::make_unique<ResidencyScanner>(
      io_, options_.root, ScanDuty(kResidencyDuty, kResidencyCreditCap),
      [this](std::vector<ResidencyResult> results) { take_residency(std::move(results)); });
  add_control_methods();
  server_->start();

  sample_epoch();  // first figures before anyone asks
  // After the kernel settings: `auto` probes the sources with NUMA balancing
  // as `own` left it.
  start_placement();
  save_state();
  const auto now = std::chrono::steady_clock::now();
  next_epoch_ = now + std::chrono::milliseconds(config_.epoch_ms);
  next_tick_ = now + std::chrono::milliseconds(config_.tick_ms);
  schedule_epoch();
  schedule_tick();
  // Where a slow start went (a machine with thousands of CPUs, an emulator).
  log::info() << std::fixed << std::setprecision(1) << "started in " << steady_seconds() - began
              << " s (the topology read in " << topology_s << " s)";
  log::info() << "serving on " << server_->path() << " (policy " << policy_name_
              << (paused_ ? ", paused" : "")
              << "; SIGTERM/Ctrl-C stops, SIGHUP reloads; try `tierctl --socket " << server_->path()
              << " status`)";
  notifier_.ready(serving_status(""));
}

void Daemon::wait_for_signal() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    if (signal == SIGHUP) {
      reload_from_signal();
      wait_for_signal();
      return;
    }
    stop(signal);
  });
}

void Daemon::stop(int signal) {
  notifier_.stopping();
  notifier_.status("stopping (signal " + std::to_string(signal) + ")");
  log::info() << "signal " << signal << ", stopping";
  watchdog_.stop();
  epoch_timer_.cancel();
  tick_timer_.cancel();
  if (server_) server_->stop();
  placement_.reset();  // no move in flight, every heat source stopped
  std::vector<std::string> restored;
  log::warn_lines(kernel_.restore_all(&restored), "kernel: ");
  log_lines(restored, "kernel: ");
  if (pools_) pools_->teardown();  // tasks back to the hierarchy root, groups removed
  if (topology_) save_state();     // workloads stay registered for the next start
  heat_.reset();                   // cancels a running collection
  residency_scanner_.reset();      // and a residency batch
  io_.stop();
}

void Daemon::reload_from_signal() {
  notifier_.reloading();
  log::info() << "SIGHUP: reloading configuration " << options_.origin();
  try {
    reload();
  } catch (const std::exception&) {
    // reload() logged and recorded the reason.
  }
  notifier_.ready(serving_status(last_reload_ ? last_reload_->message : ""));
}

// Everything is built from the new file first and committed only when all of
// it succeeded, so a bad file or an unreadable topology root leaves the
// daemon exactly as it was.
std::vector<std::string> Daemon::reload() {
  try {
    ConfigSource source;
    Config next = load_config(options_, &source);
    // Against the machine before anything changes: an error refuses the
    // whole file, as a parse error does.
    enforce(check_config(next, source, options_.root));
    WatchedTopology read = read_watched_topology(next);
    std::shared_ptr<const tier::Topology> topology = read.topology;
    std::vector<std::string> changes = config_changes(config_, next);
    for (const std::string& change : changes) log::info() << "reload: " << change;
    if (changes.empty()) log::info() << "reload: configuration unchanged";
    for (const auto& [key, now_value, running] :
         {std::tuple<const char*, std::string, std::string>{"daemon.socket", next.socket,
                                                            config_.socket},
          {"daemon.state", next.state_path, config_.state_path},
          {"metrics.listen", next.metrics_listen, config_.metrics_listen}}) {
      // Rebinding would drop connected clients and scrapes mid-request; these
      // take effect at the next start (the unit's restart).
      if (now_value != running) {
        log::warn() << "reload: " << key << " " << now_value << " takes effect on restart; still "
                    << running;
      }
    }
    if (next.policy != config_.policy || next.policy_params != config_.policy_params) {
      use_policy(next.policy, next.policy_params);
    }
    if (next.start_paused != config_.start_paused) paused_ = next.start_paused;
    // Keep the paths in use (see above) so status tells the truth.
    next.socket = config_.socket;
    next.state_path = config_.state_path;
    next.metrics_listen = config_.metrics_listen;
    apply_log_level(next);
    const bool topology_changed = topology_summary(*topology) != topology_summary(*topology_);
    if (topology_changed) {
      log::info() << "reload: topology now " << topology_summary(*topology) << " (was "
                  << topology_summary(*topology_) << ")";
      log::warn_lines(topology->warnings(), "topology: ");
    }
    const std::string running_source = heat_choice_.source;
    std::vector<std::string> applied;
    log::warn_lines(kernel_.apply(with_heat_choice(next), &applied), "kernel: ");
    log_lines(applied, "kernel: ");
    std::optional<KubepodsWatch> kubepods = kubepods_watch(next);  // may throw: nothing changed yet
    if (next.pools != config_.pools || next.suppression != config_.suppression) {
      configure_pools(next);
    }
    registry_.configure(next.watches, next.rules);
    registry_.configure_kubepods(std::move(kubepods));
    const bool restart_placement = heat_choice_.source != running_source ||
                                   next.epoch_ms != config_.epoch_ms || topology_changed;
    if (topology_changed) {
      one_tier_note_ = one_tier_note(*topology);
      one_tier_logged_ = false;
    }
    topology_ = std::move(topology);
    node_watch_.reset(read.memory, read.block_bytes);
    config_ = std::move(next);
    configure_discovery();
    if (restart_placement) start_placement();
    save_state();
    // After apply_log_level: shows up exactly when the new level allows it.
    log::debug() << "reload: topology re-read, " << topology_summary(*topology_);
    last_reload_ = ReloadNote{true, "configuration reloaded", unix_now()};
    return changes;
  } catch (const std::exception& e) {
    // ConfigError messages already name file:line and key, one per line.
    log::error() << "reload failed, keeping the running configuration: " << e.what();
    const std::string why = one_line(e.what());
    last_reload_ =
        ReloadNote{false, "reload failed (" + why + "), running configuration kept", unix_now()};
    // The status line and the control reply are one line each.
    throw std::runtime_error(why);
  }
}

void Daemon::use_policy(const std::string& name, const tier::policy::Params& params) {
  const tier::policy::PolicyInfo* info = tier::policy::find_policy(name);
  if (info == nullptr) {
    throw std::invalid_argument("unknown policy '" + name +
                                "' (policies: " + tier::policy::policy_names() + ")");
  }
  tier::policy::Params resolved = tier::policy::resolve_params(*info, params);
  policy_ = info->make(resolved);
  policy_name_ = name;
  policy_params_ = std::move(resolved);
  log::info() << "policy: " << name << " (" << info->description << ")";
}

void Daemon::record_dropped(const DroppedWorkload& dropped, std::int64_t now_unix_s) {
  residency_.erase(dropped.workload.id);
  dropped_.push_back({dropped, now_unix_s});
  while (dropped_.size() > 100) dropped_.pop_front();
  ++dropped_total_;
}

}  // namespace tierd
