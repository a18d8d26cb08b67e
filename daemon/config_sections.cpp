// One reader per configuration section (config_sections.hpp), each checking
// its table's keys and values through TableReader (config_reader.hpp).
#include "config_sections.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>
#include <stdexcept>

#include "config_reader.hpp"
#include "metrics/listen_address.hpp"
#include "tier/cpu/cpulist.hpp"
#include "tier/cpu/cpuset_backend.hpp"
#include "tier/cpu/pool_spec.hpp"
#include "tier/heat/selection.hpp"
#include "tier/values/values.hpp"

namespace tierd::detail {

namespace {

// The kernel's MAX_NUMNODES is at most 1 << 10 (CONFIG_NODES_SHIFT <= 10):
// no node id, and so no tier rank, is above this.
constexpr std::int64_t kMaxNodeId = 1023;

[[noreturn]] void fail_at(const ParseContext& context, const toml::node& node,
                          const std::string& key, const std::string& what) {
  throw ConfigError(context.origin + ":" + std::to_string(node.source().begin.line) + ": key '" +
                    key + "': " + what);
}

const toml::table* subtable(const toml::table& root, const char* name,
                            const ParseContext& context) {
  const toml::node* node = root.get(name);
  if (node == nullptr) return nullptr;
  if (const toml::table* table = node->as_table()) return table;
  fail_at(context, *node, name, "expected a table");
}

void read_daemon(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "daemon", "daemon.");
  reader.nonempty("socket", config.socket, "a socket path");
  reader.nonempty("state", config.state_path, "a file path");
  reader.checked("log_level", config.log_level, [](const std::string& level) {
    if (level != "error" && level != "warn" && level != "info" && level != "debug") {
      throw std::invalid_argument("expected one of error, warn, info, debug");
    }
  });
  reader.integer("epoch_ms", config.epoch_ms, 100, 3'600'000);
}

void read_metrics(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "metrics", "metrics.");
  reader.checked("listen", config.metrics_listen,
                 [](const std::string& text) { parse_listen_address(text); });
}

void read_policy(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "policy", "policy.");
  reader.checked("name", config.policy, [](const std::string& name) {
    if (tier::policy::find_policy(name) == nullptr) {
      throw std::invalid_argument("unknown policy '" + name +
                                  "' (policies: " + tier::policy::policy_names() + ")");
    }
  });
  reader.integer("tick_ms", config.tick_ms, 10, 3'600'000);
  reader.boolean("paused", config.start_paused);
  if (const toml::node* node = reader.get("params")) {
    const toml::table* params = node->as_table();
    if (params == nullptr) reader.fail(*node, "params", "expected a table of name = number");
    for (const auto& [key, value] : *params) {
      auto number = value.value<double>();
      if (!number || !std::isfinite(*number)) {
        reader.fail(value, "params." + std::string(key.str()), "expected a number");
      }
      config.policy_params[std::string(key.str())] = *number;
    }
    try {
      tier::policy::resolve_params(*tier::policy::find_policy(config.policy), config.policy_params);
    } catch (const std::invalid_argument& e) {
      reader.fail(*node, "params", e.what());
    }
  }
}

void read_kernel(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "kernel", "kernel.");
  if (const toml::node* node = reader.get("numa_balancing")) {
    auto mode = node->value_exact<std::int64_t>();
    if (mode && *mode >= 0 && *mode <= 3) {
      config.numa_balancing = static_cast<int>(*mode);
    } else if (node->value<std::string>() != std::optional<std::string>("keep")) {
      reader.fail(*node, "numa_balancing",
                  "expected \"keep\" or a mode 0-3 (0 off, 1 NUMA balancing, 2 memory tiering, "
                  "3 both)");
    }
  }
  if (const toml::node* node = reader.get("demotion_enabled")) {
    if (auto on = node->value_exact<bool>()) {
      config.demotion_enabled = *on;
    } else if (node->value<std::string>() != std::optional<std::string>("keep")) {
      reader.fail(*node, "demotion_enabled", "expected \"keep\", true or false");
    }
  }
}

void read_placement_section(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "placement", "placement.");
  std::string mode = to_string(config.kernel_tiering);
  reader.checked("kernel_tiering", mode, [](const std::string& text) {
    if (!parse_kernel_tiering(text)) {
      throw std::invalid_argument("expected \"own\", \"coexist\" or \"observe\"");
    }
  });
  config.kernel_tiering = *parse_kernel_tiering(mode);
  // `own` writes the kernel's tiering knobs itself; a [kernel] value beside it
  // would be overwritten, so the combination is refused rather than ignored.
  if (config.kernel_tiering == KernelTiering::own &&
      (config.numa_balancing || config.demotion_enabled)) {
    reader.fail(*reader.get("kernel_tiering"), "kernel_tiering",
                "\"own\" sets kernel.numa_balancing and kernel.demotion_enabled itself; "
                "leave them \"keep\" or use \"coexist\"");
  }
  reader.checked("heat_source", config.heat_source, [](const std::string& name) {
    if (name == "auto" || name == "off") return;
    const auto& names = tier::heat::source_names();
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    std::string known = "auto, off";
    for (std::string_view n : names) known += ", " + std::string(n);
    throw std::invalid_argument("unknown heat source '" + name + "' (sources: " + known + ")");
  });
}

void read_pools(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "pools", "pools.");
  PoolsConfig& pools = config.pools;
  reader.boolean("enabled", pools.enabled);
  reader.checked("backend", pools.backend, [](const std::string& name) {
    if (name != "auto" && !tier::cpu::parse_cpuset_backend_kind(name)) {
      throw std::invalid_argument(
          "expected \"auto\", \"cgroup-v2\", \"cgroup-v1\" or \"affinity\"");
    }
  });
  // "" is the documented "none"; which CPUs exist is the machine check's
  // question (config_check.cpp), the syntax is this one's. A list of blanks
  // would parse as none: refused, as the value grammar refuses blanks.
  reader.checked("reserved", pools.reserved, [](const std::string& text) {
    if (text.find_first_of(" \t\n") != std::string::npos || !tier::CpuList::parse(text)) {
      throw std::invalid_argument("expected a CPU list like \"0\" or \"0-1,8\"");
    }
  });
  reader.checked("placement", pools.placement, [](const std::string& text) {
    if (text != "pack" && text != "spread")
      throw std::invalid_argument("expected \"pack\" or \"spread\"");
  });
  reader.boolean("isolate_irqs", pools.isolate_irqs);
  reader.checked("parent", pools.parent, [](const std::string& name) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
      throw std::invalid_argument("expected one cgroup directory name, like \"tier\"");
    }
  });
}

void read_suppression(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "suppression", "suppression.");
  SuppressionSettings& s = config.suppression;
  reader.boolean("enabled", s.enabled);
  reader.real("cpu_threshold", s.cpu_threshold, 0.01, 1.0);
  reader.real("cpu_restore", s.cpu_restore, 0.0, 1.0);
  reader.real("restore_delay_s", s.restore_delay_s, 0.0, 3600.0);
  reader.integer("min_offline_cpus", s.min_offline_cpus, 1, 1 << 20);
  reader.integer("step_cpus", s.step_cpus, 1, 1 << 20);
  reader.real("fast_share_floor", s.fast_share_floor, 0.0, 1.0);
  reader.boolean("fast_free_trigger", s.fast_free_trigger);
  reader.real("churn_limit_mbps", s.churn_limit_mbps, 0.0, 1e6);
  reader.real("memory_budget_factor", s.memory_budget_factor, 0.0, 1.0);
  reader.boolean("cgroup_cpu_limits", s.cgroup_cpu_limits);
  if (s.cpu_restore > s.cpu_threshold) {
    const toml::node* node = reader.get("cpu_restore");
    reader.fail(node != nullptr ? *node : *reader.get("cpu_threshold"),
                node != nullptr ? "cpu_restore" : "cpu_threshold",
                "cpu_restore must not be above cpu_threshold (the gap is the hysteresis)");
  }
}

// The fields watches and rules share.
template <typename Entry>
void read_placement(const TableReader& reader, Entry& entry) {
  std::string word = to_string(entry.workload_class);
  reader.checked("class", word, [](const std::string& text) {
    if (!parse_workload_class(text)) {
      throw std::invalid_argument("expected \"online\", \"offline\" or \"default\"");
    }
  });
  entry.workload_class = *parse_workload_class(word);
  reader.integer("priority", entry.priority, -1000, 1000);
  reader.checked("pool", entry.pool, [](const std::string& text) {
    std::string error;
    if (!tier::cpu::PoolSpec::parse(text, &error)) throw std::invalid_argument(error);
  });
  std::string quota = to_string(entry.quota);
  reader.checked("quota", quota, [](const std::string& text) { parse_quota(text); });
  entry.quota = parse_quota(quota);
  reader.integer("budget_mbps", entry.budget_mbps, 0, kMaxBudgetMbps);
}

template <typename Entry>
std::vector<Entry> read_entries(const toml::table& workloads, const char* name,
                                const char* required, const ParseContext& context,
                                const std::function<void(const TableReader&, Entry&)>& read) {
  std::vector<Entry> entries;
  const toml::node* node = workloads.get(name);
  if (node == nullptr) return entries;
  const std::string key = std::string("workloads.") + name;
  const toml::array* array = node->as_array();
  if (array == nullptr) {
    fail_at(context, *node, key, "expected an array of tables ([[" + key + "]])");
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::table* table = array->get(i)->as_table();
    const std::string prefix = key + "[" + std::to_string(i) + "].";
    if (table == nullptr) {
      fail_at(context, *array->get(i), key + "[" + std::to_string(i) + "]", "expected a table");
    }
    TableReader reader(*table, context, key, prefix);
    if (table->get(required) == nullptr) {
      fail_at(context, *table, prefix + required, "required");
    }
    Entry entry;
    read(reader, entry);
    read_placement(reader, entry);
    entries.push_back(std::move(entry));
  }
  return entries;
}

void read_workloads(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "workloads", "workloads.");
  reader.checked("kubepods", config.kubepods, [](const std::string& path) {
    if (!path.empty() && path.front() != '/') {
      throw std::invalid_argument("expected an absolute cgroup directory path or \"\"");
    }
  });
  reader.checked("pod_overrides", config.pod_overrides, [](const std::string& path) {
    if (!path.empty() && path.front() != '/') {
      throw std::invalid_argument("expected an absolute file path or \"\"");
    }
  });
  std::string discover = to_string(config.discover);
  reader.checked("discover", discover, [](const std::string& text) {
    if (!parse_discover_mode(text)) {
      throw std::invalid_argument(R"(expected "off", "auto", "processes" or "cgroups")");
    }
  });
  config.discover = *parse_discover_mode(discover);
  // 1 MiB to 1 TiB: under a megabyte nothing is worth watching.
  auto min_size = [](const std::string& text) {
    return tier::values::parse_size("workloads.discover_min_size", text, std::uint64_t{1} << 20,
                                    std::uint64_t{1} << 40);
  };
  std::string discover_min = std::to_string(config.discover_min_bytes);
  reader.checked("discover_min_size", discover_min,
                 [&](const std::string& text) { min_size(text); });
  config.discover_min_bytes = min_size(discover_min);
  config.watches = read_entries<CgroupWatch>(
      table, "watch", "parent", context, [](const TableReader& entry, CgroupWatch& watch) {
        entry.checked("parent", watch.parent, [](const std::string& path) {
          if (path.empty() || path.front() != '/') {
            throw std::invalid_argument("expected an absolute cgroup directory path");
          }
        });
      });
  config.rules = read_entries<ProcessRule>(
      table, "rule", "match", context, [](const TableReader& entry, ProcessRule& rule) {
        entry.checked("match", rule.match, [](const std::string& pattern) {
          if (pattern.empty()) throw std::invalid_argument("expected a non-empty regex");
          try {
            std::regex compiled(pattern);
          } catch (const std::regex_error& e) {
            throw std::invalid_argument("not a valid regex: " + std::string(e.what()));
          }
        });
      });
}

void read_topology(const toml::table& table, const ParseContext& context, Config& config) {
  TableReader reader(table, context, "topology", "topology.");
  reader.nonempty("root", config.topology_root, "a directory path");
  const toml::node* node = reader.get("tier_override");
  if (node == nullptr) return;
  const toml::table* overrides = node->as_table();
  if (overrides == nullptr) {
    reader.fail(*node, "tier_override", "expected a table of \"node\" = rank");
  }
  for (const auto& [key, value] : *overrides) {
    const std::string name = "tier_override." + std::string(key.str());
    // The node id is text (a TOML key): the value grammar's integer, which
    // takes no sign, blanks or digits past the range ("-1" and "4294967296"
    // were once nodes 4294967295 and 0). Whether the node exists here is the
    // machine check's question (config_check.cpp).
    std::uint64_t id = 0;
    try {
      id = tier::values::parse_count(name, key.str(), 0, kMaxNodeId);
    } catch (const tier::values::ValueError& e) {
      reader.fail(value, name, "node id: " + e.why());
    }
    auto rank = value.value_exact<std::int64_t>();
    if (!rank || *rank < 0 || *rank > kMaxNodeId) {
      reader.fail(value, name,
                  "expected a tier rank, an integer from 0 to " + std::to_string(kMaxNodeId));
    }
    reader.note(name, value);
    config.tier_override[static_cast<unsigned>(id)] = static_cast<unsigned>(*rank);
  }
}

}  // namespace

void read_sections(const toml::table& root, const ParseContext& context, Config& config) {
  TableReader top(root, context, "", "");
  using Section = void (*)(const toml::table&, const ParseContext&, Config&);
  // Listed as documented; [kernel] must come before [placement], whose
  // kernel_tiering = "own" refuses the [kernel] values read before it.
  const std::pair<const char*, Section> sections[] = {{"daemon", read_daemon},
                                                      {"metrics", read_metrics},
                                                      {"policy", read_policy},
                                                      {"kernel", read_kernel},
                                                      {"placement", read_placement_section},
                                                      {"pools", read_pools},
                                                      {"suppression", read_suppression},
                                                      {"workloads", read_workloads},
                                                      {"topology", read_topology}};
  for (const auto& [name, read] : sections) {
    if (const toml::table* table = subtable(root, name, context)) read(*table, context, config);
  }
}

}  // namespace tierd::detail
