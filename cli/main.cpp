// tierctl: the command-line interface of tier.
#include <cstdlib>
#include <iostream>

#include "command.hpp"
#include "daemon_client.hpp"
#include "tier/version.hpp"

namespace tierctl {

tier::TopologyOptions topology_options(const GlobalOptions& global) {
  tier::TopologyOptions options;
  if (!global.root.empty()) options.root = tier::SysRoot(global.root);
  if (!global.hwloc_xml.empty()) options.hwloc_xml = global.hwloc_xml;
  return options;
}

namespace {

int run(int argc, char** argv) {
  CLI::App app{
      "tierctl - inspect and control tier, the tiered-memory placement and CPU-pinning runtime.\n"
      "Reads the live machine by default; --root and --hwloc-xml read a gathered sysfs tree or\n"
      "an lstopo XML export instead.",
      "tierctl"};
  app.set_version_flag("--version", std::string("tierctl ") + tier::kVersion);
  app.require_subcommand(1);
  // A usage error prints the full usage of the failing (sub)command, not just
  // "Run with --help": exit code 2 plus something to act on.
  app.failure_message(CLI::FailureMessage::help);
  app.fallthrough();

  GlobalOptions global;
  if (const char* env = std::getenv("TIER_ROOT"); env != nullptr) global.root = env;
  app.add_option(
         "--root", global.root,
         "Read every /sys and /proc file under DIR (a gathered sysfs tree); also $TIER_ROOT")
      ->type_name("DIR");
  app.add_option("--hwloc-xml", global.hwloc_xml, "Load the topology from an lstopo XML export")
      ->type_name("FILE");
  app.add_option("--socket", global.socket, "tierd control socket")
      ->type_name("PATH")
      ->capture_default_str();

  Action action;
  add_topo_command(app, global, action);
  add_doctor_command(app, global, action);
  add_stats_command(app, global, action);
  add_migrate_command(app, global, action);
  add_bench_command(app, global, action);
  add_heat_command(app, global, action);
  add_status_command(app, global, action);
  add_workloads_command(app, global, action);
  add_policy_command(app, global, action);
  add_pause_commands(app, global, action);
  add_pools_command(app, global, action);
  add_ps_command(app, global, action);
  add_run_command(app, global, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the error and the usage of the failing (sub)command
    return kUsage;
  }
  try {
    return action ? action() : kUsage;
  } catch (const UsageError& e) {
    std::cerr << "tierctl: " << e.what() << "\n";
    return kUsage;
  } catch (const tier::TopologyError& e) {
    std::cerr << "tierctl: " << e.what() << "\n";
    return kUsage;
  } catch (const DaemonUnreachable& e) {
    std::cerr << "tierctl: " << e.what() << "\n";
    return kFailure;
  } catch (const DaemonError& e) {
    std::cerr << "tierctl: " << describe(e) << "\n";
    return kFailure;
  } catch (const std::exception& e) {
    std::cerr << "tierctl: error: " << e.what() << "\n";
    return kFailure;
  }
}

}  // namespace
}  // namespace tierctl

int main(int argc, char** argv) {
  return tierctl::run(argc, argv);
}
