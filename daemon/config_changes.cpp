// What a reload changed: config_changes() (config.hpp), one line per key.
#include "config.hpp"

#include <sstream>
#include <type_traits>

namespace tierd {

namespace {

std::string describe(const std::map<unsigned, unsigned>& overrides) {
  std::string text = "{";
  for (const auto& [node, rank] : overrides) {
    if (text.size() > 1) text += ", ";
    text += std::to_string(node) + "=" + std::to_string(rank);
  }
  return text + "}";
}

std::string describe(const tier::policy::Params& params) {
  std::string text = "{";
  for (const auto& [name, value] : params) {
    if (text.size() > 1) text += ", ";
    std::ostringstream number;
    number << value;
    text += name + "=" + number.str();
  }
  return text + "}";
}

template <typename T>
std::string describe(const std::optional<T>& value) {
  if (!value) return "keep";
  if constexpr (std::is_same_v<T, bool>) return *value ? "true" : "false";
  return std::to_string(*value);
}

std::string describe(const CgroupWatch& watch) {
  return watch.parent + " (" + to_string(watch.workload_class) + ")";
}
std::string describe(const ProcessRule& rule) {
  return "/" + rule.match + "/ (" + to_string(rule.workload_class) + ")";
}
template <typename Entry>
std::string describe(const std::vector<Entry>& entries) {
  std::string text = "[";
  for (const Entry& entry : entries) text += (text.size() > 1 ? ", " : "") + describe(entry);
  return text + "]";
}

}  // namespace

std::vector<std::string> config_changes(const Config& before, const Config& after) {
  std::vector<std::string> changes;
  auto compare = [&changes](const char* key, const std::string& old_value,
                            const std::string& new_value) {
    if (old_value != new_value) {
      changes.push_back(std::string(key) + ": " + old_value + " -> " + new_value);
    }
  };
  compare("daemon.socket", before.socket, after.socket);
  compare("daemon.state", before.state_path, after.state_path);
  compare("daemon.log_level", before.log_level, after.log_level);
  compare("daemon.epoch_ms", std::to_string(before.epoch_ms), std::to_string(after.epoch_ms));
  compare("metrics.listen", before.metrics_listen, after.metrics_listen);
  compare("policy.name", before.policy, after.policy);
  compare("policy.params", describe(before.policy_params), describe(after.policy_params));
  compare("policy.tick_ms", std::to_string(before.tick_ms), std::to_string(after.tick_ms));
  compare("policy.paused", before.start_paused ? "true" : "false",
          after.start_paused ? "true" : "false");
  compare("kernel.numa_balancing", describe(before.numa_balancing), describe(after.numa_balancing));
  compare("kernel.demotion_enabled", describe(before.demotion_enabled),
          describe(after.demotion_enabled));
  compare("placement.kernel_tiering", to_string(before.kernel_tiering),
          to_string(after.kernel_tiering));
  compare("placement.heat_source", before.heat_source, after.heat_source);
  compare("pools.enabled", before.pools.enabled ? "true" : "false",
          after.pools.enabled ? "true" : "false");
  compare("pools.backend", before.pools.backend, after.pools.backend);
  compare("pools.reserved", before.pools.reserved, after.pools.reserved);
  compare("pools.placement", before.pools.placement, after.pools.placement);
  compare("pools.parent", before.pools.parent, after.pools.parent);
  compare("pools.isolate_irqs", before.pools.isolate_irqs ? "true" : "false",
          after.pools.isolate_irqs ? "true" : "false");
  compare("workloads.kubepods", before.kubepods, after.kubepods);
  if (before.suppression != after.suppression) {
    changes.push_back(std::string("suppression: ") + (after.suppression.enabled ? "on" : "off") +
                      ", settings changed");
  }
  compare("workloads.pod_overrides", before.pod_overrides, after.pod_overrides);
  compare("workloads.discover", to_string(before.discover), to_string(after.discover));
  compare("workloads.discover_min_size", std::to_string(before.discover_min_bytes),
          std::to_string(after.discover_min_bytes));
  compare("workloads.watch", describe(before.watches), describe(after.watches));
  compare("workloads.rule", describe(before.rules), describe(after.rules));
  compare("topology.root", before.topology_root, after.topology_root);
  compare("topology.tier_override", describe(before.tier_override), describe(after.tier_override));
  return changes;
}

}  // namespace tierd
