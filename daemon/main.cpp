// tierd: the tier daemon. For now it loads the topology, prints it and serves
// it on the control socket until SIGINT/SIGTERM; placement, pools, metrics
// and systemd integration arrive with later issues.
#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <iostream>

#include "config.hpp"
#include "control_server.hpp"
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

tierd::Config load(const Options& options) {
  tierd::Config config = options.config_path.empty()
                             ? tierd::parse_config(tierd::embedded_default_config(), "<embedded>")
                             : tierd::load_config_file(options.config_path);
  if (!options.socket.empty()) config.socket = options.socket;
  return config;
}

int serve(const tierd::Config& config) {
  tier::TopologyOptions topo_options;
  topo_options.root = tier::SysRoot(config.topology_root);
  topo_options.tier_override = config.tier_override;
  const tier::Topology topology = tier::load_topology(topo_options);
  tier::render_topology(std::cout, topology);
  std::cout << "\n";

  boost::asio::io_context io;
  tierd::ControlServer server(io, config.socket);
  server.add_method("topology",
                    [&topology](const boost::json::value&) { return tier::to_json(topology); });
  server.add_method("status", [](const boost::json::value&) {
    return boost::json::value{
        {"daemon", "tierd"}, {"version", tier::kVersion}, {"state", "running"}};
  });
  server.start();

  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    std::cout << "tierd: signal " << signal << ", stopping\n";
    server.stop();
    io.stop();
  });
  std::cout << "tierd: serving on " << server.path() << " (Ctrl-C to stop; try `tierctl --socket "
            << server.path() << " topo --daemon`)" << std::endl;
  io.run();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tierd - the tier daemon: tiered-memory placement and CPU pools.\n"
      "Without --config it runs on the embedded default configuration.",
      "tierd"};
  app.set_version_flag("--version", std::string("tierd ") + tier::kVersion);
  app.failure_message(CLI::FailureMessage::help);
  Options options;
  app.add_option("--config", options.config_path, "TOML configuration file (default: embedded)")
      ->type_name("FILE");
  app.add_option("--socket", options.socket, "Control socket path (overrides the config)")
      ->type_name("PATH");
  app.add_flag("--foreground", options.foreground, "Stay in the foreground (the only mode so far)");
  app.add_flag("--check-config", options.check_config, "Validate the configuration and exit");
  app.add_flag("--print-default-config", options.print_default_config,
               "Print the embedded default configuration and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (options.print_default_config) {
    std::cout << tierd::embedded_default_config();
    return 0;
  }
  try {
    tierd::Config config = load(options);
    if (options.check_config) {
      std::cout << "tierd: configuration "
                << (options.config_path.empty() ? "<embedded>" : options.config_path)
                << " is valid\n";
      return 0;
    }
    return serve(config);
  } catch (const tierd::ConfigError& e) {
    std::cerr << "tierd: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tierd: error: " << e.what() << "\n";
    return 1;
  }
}
