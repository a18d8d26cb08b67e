// tierd configuration: TOML parsed with toml++, strict (unknown keys are
// errors), every error naming file, line and key.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace tierd {

struct Config {
  std::string socket = "/run/tier/tierd.sock";
  std::string log_level = "info";
  std::string topology_root = "/";
  std::map<unsigned, unsigned> tier_override;
};

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The default configuration compiled into tierd (daemon/default_config.toml).
const char* embedded_default_config();

/// Parses TOML text; `origin` names the file in error messages.
Config parse_config(const std::string& text, const std::string& origin);
/// Reads and parses a file; throws ConfigError naming the file when unreadable.
Config load_config_file(const std::string& path);

}  // namespace tierd
