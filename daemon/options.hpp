// tierd's command line: where the configuration comes from and the overrides
// a test or a second instance needs (docs/configuration.md, "Command line").
#pragma once

#include <optional>
#include <string>

#include "config.hpp"
#include "tier/posix/sysroot.hpp"

namespace tierd {

struct Options {
  // Each nullopt when its flag is not given; given empty is an error
  // (load_config), never "not given".
  std::optional<std::string> config_path;  // --config FILE; nullopt: the embedded default
  std::optional<std::string> socket;       // --socket PATH
  std::optional<std::string> metrics;      // --metrics ADDR:PORT|off
  std::optional<std::string> state;        // --state PATH
  bool foreground = false;
  bool check_config = false;
  bool print_default_config = false;
  bool list_policies = false;
  bool list_sources = false;
  bool status_line = false;  // one status line per policy tick on stdout (`make run`)
  /// The system tierd acts on: every /proc, /sys and cgroup access of the
  /// kernel settings, workloads, pools, heat sources and residency scans goes
  /// through it. Always "/" (no flag); the parts take it as an argument so
  /// their tests point them at fixture trees. [topology] root is separate:
  /// it redirects only the topology and node-memory reads.
  tier::SysRoot root;

  std::string origin() const { return config_path.value_or("<embedded>"); }
  /// "configuration /etc/tier/tierd.toml", "the embedded default configuration".
  std::string describe_origin() const {
    return config_path ? "configuration " + *config_path : "the embedded default configuration";
  }
};

/// The configuration from --config (or the embedded default) with the
/// command-line overrides applied; throws ConfigError (a flag given empty,
/// --config naming a directory or nothing, a bad file). `source`, when
/// given, receives where each key came from (the flags included).
Config load_config(const Options& options, ConfigSource* source = nullptr);

}  // namespace tierd
