// Table walk and key checks of the configuration parser (config_reader.hpp).
#include "config_reader.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tier/values/values.hpp"

namespace tierd {

namespace {

// The keys of each table, in documentation order ("workloads.watch" for the
// entries of [[workloads.watch]]); config_keys() and the unknown-key check
// both come from here.
const std::vector<std::pair<std::string, std::vector<std::string>>>& schema() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> tables{
      {"daemon", {"socket", "state", "log_level", "epoch_ms"}},
      {"metrics", {"listen"}},
      {"policy", {"name", "params", "tick_ms", "paused"}},
      {"kernel", {"numa_balancing", "demotion_enabled"}},
      {"placement", {"kernel_tiering", "heat_source"}},
      {"pools", {"enabled", "backend", "reserved", "placement", "parent", "isolate_irqs"}},
      {"suppression",
       {"enabled", "cpu_threshold", "cpu_restore", "restore_delay_s", "min_offline_cpus",
        "step_cpus", "fast_share_floor", "fast_free_trigger", "churn_limit_mbps",
        "memory_budget_factor", "cgroup_cpu_limits"}},
      {"workloads",
       {"watch", "rule", "kubepods", "pod_overrides", "discover", "discover_min_size"}},
      {"workloads.watch", {"parent", "class", "priority", "pool", "quota", "budget_mbps"}},
      {"workloads.rule", {"match", "class", "priority", "pool", "quota", "budget_mbps"}},
      {"topology", {"root", "tier_override"}},
  };
  return tables;
}

const std::vector<std::string>& keys_of(const std::string& table) {
  for (const auto& [name, keys] : schema()) {
    if (name == table) return keys;
  }
  static const std::vector<std::string> top{"daemon",      "metrics",   "policy",
                                            "kernel",      "placement", "pools",
                                            "suppression", "workloads", "topology"};
  return top;
}

}  // namespace

namespace detail {

TableReader::TableReader(const toml::table& table, const ParseContext& context,
                         std::string schema_name, std::string prefix)
    : table_(table), context_(context), prefix_(std::move(prefix)) {
  const std::vector<std::string>& known = keys_of(schema_name);
  for (const auto& [key, node] : table_) {
    std::string name(key.str());
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      fail(node, name, "unknown key");
    }
    note(name, node);
  }
}

void TableReader::fail(const toml::node& node, const std::string& key,
                       const std::string& what) const {
  throw ConfigError(context_.origin + ":" + std::to_string(node.source().begin.line) + ": key '" +
                    prefix_ + key + "': " + what);
}

void TableReader::note(const std::string& key, const toml::node& node) const {
  if (context_.source != nullptr) context_.source->lines[prefix_ + key] = node.source().begin.line;
}

void TableReader::string(const char* key, std::string& out) const {
  if (const toml::node* node = get(key)) {
    auto value = node->value<std::string>();
    if (!value) fail(*node, key, "expected a string");
    out = *value;
  }
}

void TableReader::nonempty(const char* key, std::string& out, const char* expected) const {
  string(key, out);
  if (const toml::node* node = get(key); node != nullptr && out.empty()) {
    fail(*node, key, std::string("expected ") + expected + ", got nothing");
  }
}

void TableReader::boolean(const char* key, bool& out) const {
  if (const toml::node* node = get(key)) {
    auto value = node->value_exact<bool>();  // value<bool>() took 1 as true
    if (!value) fail(*node, key, "expected true or false");
    out = *value;
  }
}

void TableReader::real(const char* key, double& out, double min, double max) const {
  if (const toml::node* node = get(key)) {
    auto value = node->value<double>();  // integers are taken as numbers too
    // TOML has nan and inf: nan compares false with both bounds.
    if (!value || !std::isfinite(*value) || *value < min || *value > max) {
      fail(*node, key, "expected a number " + tier::values::range_text(min, max));
    }
    out = *value;
  }
}

void TableReader::checked(const char* key, std::string& out,
                          const std::function<void(const std::string&)>& check) const {
  string(key, out);
  if (const toml::node* node = get(key)) {
    try {
      check(out);
    } catch (const tier::values::ValueError& e) {
      fail(*node, key, e.why());
    } catch (const std::invalid_argument& e) {
      fail(*node, key, e.what());
    }
  }
}

}  // namespace detail

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  for (const auto& [table, names] : schema()) {
    for (const std::string& name : names) {
      // "workloads.watch" and "workloads.rule" are tables of their own.
      const std::string key = table + "." + name;
      if (key == "workloads.watch" || key == "workloads.rule") continue;
      keys.push_back(key);
    }
  }
  return keys;
}

}  // namespace tierd
