// The shared tierctl app (see app.hpp).
#include "app.hpp"

#include <cstdlib>
#include <iostream>

#include "daemon_client.hpp"
#include "tier/version.hpp"

namespace tierctl {

std::unique_ptr<CLI::App> make_app(GlobalOptions& global) {
  auto app = std::make_unique<CLI::App>(
      "tierctl - inspect and control tier, the tiered-memory placement and CPU-pinning runtime.\n"
      "Reads the live machine by default; --root and --hwloc-xml read a gathered sysfs tree or\n"
      "an lstopo XML export instead.",
      "tierctl");
  app->set_version_flag("--version", std::string("tierctl ") + tier::kVersion);
  app->require_subcommand(1);
  // A usage error prints the full usage of the failing (sub)command, not just
  // "Run with --help": exit code 2 plus something to act on.
  app->failure_message(CLI::FailureMessage::help);
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

int parse_and_run(CLI::App& app, const Action& action, int argc, char** argv) {
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

}  // namespace tierctl
