// parse_config and load_config_file (config.hpp): the TOML text parsed, then
// read section by section (config_sections.cpp).
#include "config.hpp"

#include <toml++/toml.h>
#include <fstream>
#include <sstream>

#include "config_sections.hpp"
#include "default_config.hpp"

namespace tierd {

const char* to_string(KernelTiering mode) {
  switch (mode) {
    case KernelTiering::own:
      return "own";
    case KernelTiering::coexist:
      return "coexist";
    case KernelTiering::observe:
      return "observe";
  }
  return "?";
}

std::optional<KernelTiering> parse_kernel_tiering(const std::string& text) {
  if (text == "own") return KernelTiering::own;
  if (text == "coexist") return KernelTiering::coexist;
  if (text == "observe") return KernelTiering::observe;
  return std::nullopt;
}

const char* embedded_default_config() {
  return kDefaultConfigToml;
}

Config parse_config(const std::string& text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw ConfigError(origin + ":" + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()));
  }
  Config config;
  detail::read_sections(root, origin, config);
  return config;
}

Config load_config_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot read configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

}  // namespace tierd
