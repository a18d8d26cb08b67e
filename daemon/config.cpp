// parse_config and load_config_file (config.hpp): the TOML text parsed, then
// read section by section (config_sections.cpp); ConfigSource's messages.
#include "config.hpp"

#include <toml++/toml.h>
#include <fstream>
#include <sstream>

#include "config_sections.hpp"
#include "default_config.hpp"
#include "tier/values/values.hpp"

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

Config parse_config(const std::string& text, const std::string& origin, ConfigSource* source) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw ConfigError(origin + ":" + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()));
  }
  Config config;
  if (source != nullptr) *source = ConfigSource{origin, {}, {}};
  detail::read_sections(root, {origin, source}, config);
  return config;
}

Config load_config_file(const std::string& path, ConfigSource* source) {
  // A directory opens and reads as an empty file, which would validate as
  // the defaults: refused by kind first (tierd's only file is --config's).
  try {
    tier::values::require_path("--config", path, tier::values::PathKind::file);
  } catch (const tier::values::ValueError& e) {
    throw ConfigError(e.what());
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot read configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path, source);
}

std::string ConfigSource::message(const std::string& key, const std::string& text,
                                  const std::string& why) const {
  if (auto flag = flags.find(key); flag != flags.end()) {
    return tier::values::ValueError(flag->second, text, why).what();
  }
  if (auto line = lines.find(key); line != lines.end()) {
    return origin + ":" + std::to_string(line->second) + ": key '" + key + "': " + why;
  }
  return origin + ": key '" + key + "' (default): " + why;
}

}  // namespace tierd
