// A parsed configuration checked against the machine (issue 16): what the
// parser cannot know — whether the nodes, CPUs, paths, heat source, cpuset
// backend and kernel knobs a configuration names exist and can be used here.
//
// Contract: check_config() changes nothing and never throws for what it
// finds; every finding is a whole sentence located like a parse error
// ("FILE:LINE: key 'pools.reserved': no such CPU 7 on this machine (CPUs:
// 0-1)", ConfigSource::message), with the reason in the words `tierctl
// doctor` uses where a doctor check or a heat-source probe is the reason.
// `tierd --check-config`, the start and every reload run it: an error stops
// the start before anything is changed and refuses a reload (the running
// configuration stays); warnings are logged at warning level.
// docs/configuration.md ("Checked against the machine") lists every finding,
// error or warning, and why.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "tier/cpu/cpulist.hpp"
#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"

namespace tierd {

struct ConfigFinding {
  enum class Severity { error, warning };
  Severity severity = Severity::error;
  std::string key;      // the dotted key: "pools.reserved", "workloads.watch[0].pool"
  std::string message;  // the whole sentence, located (ConfigSource::message)
};

struct ConfigCheck {
  std::vector<ConfigFinding> findings;

  bool ok() const { return errors().empty(); }
  std::vector<std::string> errors() const;
  std::vector<std::string> warnings() const;
};

/// Checks `config` (where its keys came from: `source`) against this machine.
/// `root` is the system tierd acts on (Options::root: cgroups, heat sources,
/// kernel knobs); nodes and CPUs are the topology's under
/// config.topology_root, as the daemon loads them.
ConfigCheck check_config(const Config& config, const ConfigSource& source,
                         const tier::SysRoot& root);

/// The ids of the topology's nodes, for the value grammar's existence checks.
tier::CpuList node_ids(const tier::Topology& topology);
/// A "numa:N" pool must name one of `nodes` (throws tier::values::ValueError
/// naming `name`); other pools, and text that is no pool, pass (PoolSpec's
/// own check says what is wrong with those). The config check and the
/// control methods use it.
void require_pool_node(std::string_view name, const std::string& pool, const tier::CpuList& nodes);

/// Logs the warnings at warning level; throws ConfigError with every error,
/// one per line, when there is one.
void enforce(const ConfigCheck& check);

}  // namespace tierd
