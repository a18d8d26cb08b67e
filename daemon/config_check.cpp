// check_config (config_check.hpp): one function per section, each adding the
// findings of its keys. Which finding is an error and which a warning is
// docs/configuration.md's table "Checked against the machine"; the rule
// behind it: an error where tierd would stop, or would silently do something
// else than the setting says for as long as it runs; a warning where tierd
// keeps a documented fallback or the machine may still change to fit (a
// cgroup created later, a heat source that needs root).
#include "config_check.hpp"

#include <filesystem>
#include <functional>
#include <optional>

#include "log.hpp"
#include "tier/cpu/pool_spec.hpp"
#include "tier/doctor/doctor.hpp"
#include "tier/heat/selection.hpp"
#include "tier/topology/topology.hpp"
#include "tier/values/values.hpp"

namespace tierd {

namespace {

namespace fs = std::filesystem;
namespace values = tier::values;
using Severity = ConfigFinding::Severity;

class Checker {
 public:
  Checker(const Config& config, const ConfigSource& source, const tier::SysRoot& root)
      : config_(config), source_(source), root_(root) {}

  ConfigCheck run() {
    check_daemon();
    check_topology();
    check_placement();
    check_kernel();
    check_pools();
    check_workloads();
    return std::move(result_);
  }

 private:
  void add(Severity severity, const std::string& key, const std::string& text,
           const std::string& why) {
    result_.findings.push_back({severity, key, source_.message(key, text, why)});
  }
  /// Runs `check`; a ValueError it throws becomes a finding on `key`.
  void expect(Severity severity, const std::string& key, const std::string& text,
              const std::function<void()>& check) {
    try {
      check();
    } catch (const values::ValueError& e) {
      add(severity, key, text, e.why());
    }
  }

  // The topology tierd would load (daemon.cpp load_topology): nullptr when
  // it cannot be loaded (check_topology says why).
  const tier::Topology* topology() {
    if (!topology_tried_) {
      topology_tried_ = true;
      try {
        tier::TopologyOptions options;
        options.root = tier::SysRoot(config_.topology_root);
        topology_ = tier::load_topology(options);
      } catch (const std::exception& e) {
        topology_error_ = e.what();
      }
    }
    return topology_ ? &*topology_ : nullptr;
  }
  tier::CpuList nodes() {
    const tier::Topology* t = topology();
    return t != nullptr ? node_ids(*t) : tier::CpuList();
  }
  tier::CpuList cpus() {
    std::vector<unsigned> ids;
    if (const tier::Topology* t = topology()) {
      for (const tier::Node& node : t->nodes()) {
        ids.insert(ids.end(), node.cpus.ids().begin(), node.cpus.ids().end());
      }
    }
    return tier::CpuList(std::move(ids));
  }
  // `tierctl doctor`'s file-based checks under the root (its live probes
  // are not needed by any setting here).
  const tier::doctor::CheckResult& doctor(std::string_view name) {
    if (!doctor_) doctor_ = tier::doctor::run_checks(root_, tier::doctor::Probers{});
    return *tier::doctor::find(*doctor_, name);
  }
  const std::vector<tier::heat::SourceInfo>& heat_sources() {
    if (!heat_) heat_ = tier::heat::probe_sources(root_);
    return *heat_;
  }

  void check_daemon();
  void check_topology();
  void check_placement();
  void check_kernel();
  void check_pools();
  void check_workloads();
  void check_pool(const std::string& key, const std::string& pool);
  void check_creatable(const std::string& key, const std::string& path, values::PathKind kind);

  const Config& config_;
  const ConfigSource& source_;
  const tier::SysRoot& root_;
  ConfigCheck result_;
  bool topology_tried_ = false;
  std::optional<tier::Topology> topology_;
  std::string topology_error_;
  std::optional<std::vector<tier::doctor::CheckResult>> doctor_;
  std::optional<std::vector<tier::heat::SourceInfo>> heat_;
};

/// "cgroup_v2_cpuset missing: no cgroup2 mount in the mount table", as the
/// doctor's table prints a check.
std::string doctor_words(const tier::doctor::CheckResult& result) {
  return result.name + " " + tier::doctor::to_string(result.status) + ": " + result.detail;
}

// tierd creates a missing socket or state directory itself (ControlServer,
// write_state_file), so the path must be creatable from its nearest existing
// ancestor; the rest is the value grammar's require_creatable.
void Checker::check_creatable(const std::string& key, const std::string& path,
                              values::PathKind kind) {
  if (path.empty()) return;  // the parser refused it already
  std::error_code ec;
  const fs::path wanted = fs::absolute(path, ec);
  const fs::path dir = wanted.parent_path();
  fs::path existing = dir;  // walks up to "/" at most, which exists
  while (existing != existing.parent_path() && !fs::exists(existing, ec)) {
    existing = existing.parent_path();
  }
  if (existing == dir) {
    expect(Severity::error, key, path, [&] { values::require_creatable(key, path, kind); });
    return;
  }
  // The first missing directory is the one tierd would create.
  const fs::path first_missing = existing / dir.lexically_relative(existing).begin()->string();
  try {
    values::require_creatable(key, first_missing, values::PathKind::directory);
  } catch (const values::ValueError& e) {
    add(Severity::error, key, path, e.why() + ", so tierd cannot create directory " + dir.string());
  }
}

void Checker::check_daemon() {
  check_creatable("daemon.socket", config_.socket, values::PathKind::socket);
  check_creatable("daemon.state", config_.state_path, values::PathKind::file);
}

void Checker::check_topology() {
  try {
    values::require_path("topology.root", config_.topology_root, values::PathKind::directory);
  } catch (const values::ValueError& e) {
    add(Severity::error, "topology.root", config_.topology_root, e.why());
    topology_tried_ = true;  // nothing to load: the node and CPU checks are skipped
    return;
  }
  if (topology() == nullptr) {
    add(Severity::error, "topology.root", config_.topology_root, topology_error_);
    return;
  }
  const tier::CpuList existing = nodes();
  for (const auto& [node, rank] : config_.tier_override) {
    const std::string key = "topology.tier_override." + std::to_string(node);
    expect(Severity::error, key, std::to_string(node),
           [&] { values::require_existing(key, node, values::IdKind::node, existing); });
  }
}

void Checker::check_placement() {
  const std::string& source = config_.heat_source;
  if (source == "off") return;
  if (source == "auto") {
    try {
      tier::heat::choose_sources("auto", heat_sources());
    } catch (const std::exception& e) {
      add(Severity::warning, "placement.heat_source", source,
          std::string(e.what()) +
              " (`tierctl doctor` lists them); the policy plans on "
              "residency alone");
    }
    return;
  }
  for (const tier::heat::SourceInfo& info : heat_sources()) {
    if (info.name != source || info.availability.available) continue;
    add(Severity::warning, "placement.heat_source", source,
        "heat source " + source + " is not available here: " + info.availability.reason +
            " (as `tierctl doctor` reports); tierd retries it and plans on residency alone "
            "meanwhile");
  }
}

// A knob tierd will write that this kernel does not have: tierd warns and
// goes on at start (kernel_settings.cpp), so a warning here too.
void Checker::check_kernel() {
  const bool own = config_.kernel_tiering == KernelTiering::own;
  const auto knob = [&](const char* key, bool written, std::string_view check) {
    if (!written) return;
    const tier::doctor::CheckResult& result = doctor(check);
    if (result.status == tier::doctor::Status::ok) return;
    add(Severity::warning, own ? "placement.kernel_tiering" : key, own ? "own" : key,
        std::string(own ? "\"own\" writes " + std::string(key) : "the setting") +
            " but it cannot be written here: " + doctor_words(result) +
            (result.impact.empty() ? "" : " (" + result.impact + ")"));
  };
  knob("kernel.numa_balancing", own || config_.numa_balancing.has_value(), "numa_balancing");
  knob("kernel.demotion_enabled", own || config_.demotion_enabled.has_value(), "demotion");
}

void Checker::check_pools() {
  const PoolsConfig& pools = config_.pools;
  if (!pools.reserved.empty() && topology() != nullptr) {
    const tier::CpuList existing = cpus();
    expect(Severity::error, "pools.reserved", pools.reserved, [&] {
      values::parse_id_list("pools.reserved", pools.reserved, values::IdKind::cpu, existing);
    });
  }
  if (config_.suppression.enabled && !pools.enabled) {
    add(Severity::error, "suppression.enabled", "true",
        "needs pools.enabled = true: suppression shrinks the offline workloads' pool, and "
        "without pools there is none, so nothing would ever be suppressed");
  }
  if (!pools.enabled) return;
  const tier::doctor::CheckResult& v2 = doctor("cgroup_v2_cpuset");
  const tier::doctor::CheckResult& v1 = doctor("cgroup_v1_cpuset");
  const auto usable = [](const tier::doctor::CheckResult& r) {
    return r.status == tier::doctor::Status::ok;
  };
  // A named backend that is not usable stops tierd at start (the pool
  // manager throws): the same verdict, before anything is changed.
  if (pools.backend == "cgroup-v2" && !usable(v2)) {
    add(Severity::error, "pools.backend", pools.backend,
        "cpuset backend cgroup-v2 is not usable here: " + doctor_words(v2));
  } else if (pools.backend == "cgroup-v1" && !usable(v1)) {
    add(Severity::error, "pools.backend", pools.backend,
        "cpuset backend cgroup-v1 is not usable here: " + doctor_words(v1));
  } else if (pools.backend == "auto" && !usable(v2) && !usable(v1)) {
    add(Severity::warning, "pools.backend", pools.backend,
        "no cpuset controller here (" + doctor_words(v2) + "; " + doctor_words(v1) +
            "): pools are enforced with sched_setaffinity and set_mempolicy only (" + v1.impact +
            ")");
  }
}

// "numa:N" names a node: it must be one of the topology's.
void Checker::check_pool(const std::string& key, const std::string& pool) {
  if (topology() == nullptr) return;
  const tier::CpuList existing = nodes();
  expect(Severity::error, key, pool, [&] { require_pool_node(key, pool, existing); });
}

void Checker::check_workloads() {
  const auto cgroup_dir = [&](const std::string& key, const std::string& path) {
    // Watched parents are listed every epoch and the kubepods root once the
    // kubelet makes it: missing now is worth a warning, not a refusal.
    if (fs::is_directory(root_.path(path))) return;
    add(Severity::warning, key, path,
        "no cgroup directory " + path +
            " here (yet); its children become workloads once it "
            "exists");
  };
  if (!config_.kubepods.empty()) cgroup_dir("workloads.kubepods", config_.kubepods);
  if (!config_.pod_overrides.empty()) {
    // Read at start and reload (PodOverrides::load): missing stops tierd.
    expect(Severity::error, "workloads.pod_overrides", config_.pod_overrides, [&] {
      values::require_path("workloads.pod_overrides", config_.pod_overrides,
                           values::PathKind::file);
    });
    if (config_.kubepods.empty()) {
      add(Severity::warning, "workloads.pod_overrides", config_.pod_overrides,
          "is read only with workloads.kubepods set; without it no pod is discovered");
    }
  }
  for (std::size_t i = 0; i < config_.watches.size(); ++i) {
    const std::string prefix = "workloads.watch[" + std::to_string(i) + "].";
    cgroup_dir(prefix + "parent", config_.watches[i].parent);
    check_pool(prefix + "pool", config_.watches[i].pool);
  }
  for (std::size_t i = 0; i < config_.rules.size(); ++i) {
    check_pool("workloads.rule[" + std::to_string(i) + "].pool", config_.rules[i].pool);
  }
}

std::vector<std::string> messages(const ConfigCheck& check, Severity severity) {
  std::vector<std::string> out;
  for (const ConfigFinding& finding : check.findings) {
    if (finding.severity == severity) out.push_back(finding.message);
  }
  return out;
}

}  // namespace

std::vector<std::string> ConfigCheck::errors() const {
  return messages(*this, Severity::error);
}

std::vector<std::string> ConfigCheck::warnings() const {
  return messages(*this, Severity::warning);
}

ConfigCheck check_config(const Config& config, const ConfigSource& source,
                         const tier::SysRoot& root) {
  return Checker(config, source, root).run();
}

tier::CpuList node_ids(const tier::Topology& topology) {
  std::vector<unsigned> ids;
  for (const tier::Node& node : topology.nodes()) ids.push_back(node.id);
  return tier::CpuList(std::move(ids));
}

void require_pool_node(std::string_view name, const std::string& pool, const tier::CpuList& nodes) {
  auto spec = tier::cpu::PoolSpec::parse(pool);
  if (!spec || spec->kind != tier::cpu::PoolKind::numa) return;
  try {
    values::require_existing(name, spec->value, values::IdKind::node, nodes);
  } catch (const values::ValueError& e) {
    throw values::ValueError(std::string(name), pool, e.why());  // the pool as typed
  }
}

void enforce(const ConfigCheck& check) {
  for (const std::string& warning : check.warnings()) log::warn() << warning;
  std::string errors;
  for (const std::string& error : check.errors()) errors += (errors.empty() ? "" : "\n") + error;
  if (!errors.empty()) throw ConfigError(errors);
}

}  // namespace tierd
