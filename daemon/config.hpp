// tierd configuration: TOML parsed with toml++, strict (unknown keys are
// errors), every error naming file, line and key. docs/configuration.md
// documents every key; tests/unit/configuration_doc_test.cpp holds the two to
// each other.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tier/policy/policy.hpp"
#include "workloads/registry.hpp"

namespace tierd {

/// Who moves pages between tiers (docs/kernel-tiering.md): tierd alone, tierd
/// beside the kernel's own promotion, or nobody (sample and report only).
enum class KernelTiering { own, coexist, observe };
const char* to_string(KernelTiering mode);
std::optional<KernelTiering> parse_kernel_tiering(const std::string& text);

/// [pools]: CPU pools and cpusets (docs/pools.md).
struct PoolsConfig {
  bool enabled = false;            // confine registered workloads to their pools' cpusets
  std::string backend = "auto";    // "auto", "cgroup-v2", "cgroup-v1", "affinity"
  std::string reserved;            // CPU list kept out of every pool ("" = none)
  std::string placement = "pack";  // "pack" or "spread"
  std::string parent = "tier";     // the cpuset group tierd owns (one path component)
  bool isolate_irqs = false;       // keep device IRQs off exclusive CPUs (restored at stop)
  bool operator==(const PoolsConfig&) const = default;
};

/// [suppression]: offline suppression (docs/suppression.md); needs [pools].
struct SuppressionSettings {
  bool enabled = false;
  double cpu_threshold = 0.65;  // shrink offline CPUs while online CPU use is above
  double cpu_restore = 0.50;    // give them back once it stays below ...
  double restore_delay_s = 5;   // ... for this long
  unsigned min_offline_cpus = 1;
  unsigned step_cpus = 1;
  double fast_share_floor = 0;         // online fast-tier share floor; 0 = that trigger off
  bool fast_free_trigger = true;       // a fast node's free memory under its low watermark
  double churn_limit_mbps = 0;         // promoted + demoted MB/s above which; 0 = off
  double memory_budget_factor = 0.25;  // offline migration budget x this on a memory trigger
  bool cgroup_cpu_limits = true;       // cgroup v2: cpu.max/cpu.weight of the offline groups
  bool operator==(const SuppressionSettings&) const = default;
};

struct Config {
  // [daemon]
  std::string socket = "/run/tier/tierd.sock";
  std::string state_path = "/var/lib/tier/state.json";
  std::string log_level = "info";
  unsigned epoch_ms = 1000;  // sampling epoch: node memory, counters, workloads
  // [metrics]
  std::string metrics_listen = "127.0.0.1:9464";  // or "off"
  // [policy]
  std::string policy = "balanced";
  tier::policy::Params policy_params;  // as given (defaults not filled in)
  unsigned tick_ms = 1000;
  bool start_paused = false;
  // [kernel]: nullopt = leave the kernel's value alone ("keep").
  std::optional<int> numa_balancing;
  std::optional<bool> demotion_enabled;
  // [placement]
  KernelTiering kernel_tiering = KernelTiering::coexist;
  std::string heat_source = "auto";  // a heat source name, "auto" or "off"
  // [pools]
  PoolsConfig pools;
  // [suppression]
  SuppressionSettings suppression;
  // [workloads]
  std::vector<CgroupWatch> watches;
  std::vector<ProcessRule> rules;
  std::string kubepods;       // kubepods cgroup root to discover pods under; "" = off
  std::string pod_overrides;  // TOML file of [[pod]] overrides (docs/kubernetes.md); "" = none
  DiscoverMode discover = DiscoverMode::automatic;  // every sizeable process or leaf cgroup
  std::uint64_t discover_min_bytes = kDefaultDiscoverMinBytes;
  // [topology]
  std::string topology_root = "/";
  std::map<unsigned, unsigned> tier_override;

  bool operator==(const Config&) const = default;
};

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Where each setting of a Config came from, so that a check made after
/// parsing (config_check.hpp: against the machine) names it the way a parse
/// error does: the file and line of every key the file set, or the
/// command-line flag that overrode it.
struct ConfigSource {
  std::string origin;                        // the file, or "<embedded>"
  std::map<std::string, unsigned> lines;     // "daemon.socket", "workloads.watch[0].pool" → line
  std::map<std::string, std::string> flags;  // "daemon.socket" → "--socket"

  /// The message about `key` (holding `text`) that says `why`:
  /// "FILE:LINE: key 'K': why", "FILE: key 'K' (default): why" for a key
  /// the file left out, or the value grammar's "--socket TEXT: why" for one
  /// a flag set.
  std::string message(const std::string& key, const std::string& text,
                      const std::string& why) const;
};

/// The default configuration compiled into tierd (daemon/default_config.toml).
const char* embedded_default_config();

/// Parses TOML text; `origin` names the file in error messages. `source`,
/// when given, receives the line of every key.
Config parse_config(const std::string& text, const std::string& origin,
                    ConfigSource* source = nullptr);
/// Reads and parses a file; throws ConfigError naming the file when it is
/// missing, a directory or unreadable.
Config load_config_file(const std::string& path, ConfigSource* source = nullptr);

/// Every key the parser reads, dotted ("daemon.socket", "workloads.rule.match").
std::vector<std::string> config_keys();

/// One "key: old -> new" line per setting that differs (reload log, API).
std::vector<std::string> config_changes(const Config& before, const Config& after);

}  // namespace tierd
