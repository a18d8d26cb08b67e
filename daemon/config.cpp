#include "config.hpp"

#include <toml++/toml.h>
#include <charconv>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "default_config.hpp"

namespace tierd {

namespace {

std::string where(const std::string& origin, const toml::source_region& region,
                  const std::string& key) {
  return origin + ":" + std::to_string(region.begin.line) + ": key '" + key + "'";
}

void reject_unknown(const toml::table& table, const std::set<std::string>& known,
                    const std::string& origin, const std::string& prefix) {
  for (const auto& [key, node] : table) {
    std::string name(key.str());
    if (!known.contains(name)) {
      throw ConfigError(where(origin, node.source(), prefix + name) + ": unknown key");
    }
  }
}

std::string get_string(const toml::table& table, const char* key, const std::string& fallback,
                       const std::string& origin, const std::string& prefix) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return fallback;
  if (auto value = node->value<std::string>()) return *value;
  throw ConfigError(where(origin, node->source(), prefix + key) + ": expected a string");
}

}  // namespace

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
  reject_unknown(root, {"daemon", "topology"}, origin, "");
  Config config;
  if (const toml::table* daemon = root["daemon"].as_table()) {
    reject_unknown(*daemon, {"socket", "log_level"}, origin, "daemon.");
    config.socket = get_string(*daemon, "socket", config.socket, origin, "daemon.");
    config.log_level = get_string(*daemon, "log_level", config.log_level, origin, "daemon.");
    static const std::set<std::string> levels{"error", "warn", "info", "debug"};
    if (!levels.contains(config.log_level)) {
      throw ConfigError(where(origin, daemon->get("log_level")->source(), "daemon.log_level") +
                        ": expected one of error, warn, info, debug");
    }
  }
  if (const toml::table* topology = root["topology"].as_table()) {
    reject_unknown(*topology, {"root", "tier_override"}, origin, "topology.");
    config.topology_root = get_string(*topology, "root", config.topology_root, origin, "topology.");
    if (const toml::node* node = topology->get("tier_override")) {
      const toml::table* overrides = node->as_table();
      if (overrides == nullptr) {
        throw ConfigError(where(origin, node->source(), "topology.tier_override") +
                          ": expected a table of \"node\" = rank");
      }
      for (const auto& [key, value] : *overrides) {
        const std::string name = "topology.tier_override." + std::string(key.str());
        auto rank = value.value<int64_t>();
        // from_chars, unlike stoul, takes no sign or blanks and reports ids
        // beyond unsigned: "-1" and "4294967296" were accepted as nodes
        // 4294967295 and 0, and a rank of 2^32 as rank 0.
        const std::string_view id_text = key.str();
        unsigned id = 0;
        const auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
        if (ec != std::errc() || end != id_text.data() + id_text.size() || !rank || *rank < 0 ||
            *rank > std::numeric_limits<unsigned>::max()) {
          throw ConfigError(where(origin, value.source(), name) +
                            ": expected \"NODE\" = RANK with non-negative integers");
        }
        config.tier_override[id] = static_cast<unsigned>(*rank);
      }
    }
  }
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
