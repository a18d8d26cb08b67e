// Placement policies: pure decision functions from a snapshot of the machine
// and its workloads to a plan of page moves (docs/policies.md).
//
// Contract: a Policy never makes a system call, reads a clock or touches a
// global; everything it knows arrives in the Snapshot (time included), and
// everything it wants done leaves in the Plan. It may keep its own history
// between ticks (e.g. anti-thrash records) because the same object sees every
// tick. That is what lets the daemon, the unit tests and a trace-driven
// simulator run the very same code.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tier/protocol/workload_class.hpp"

namespace tier {
class Topology;
}

namespace tier::policy {

/// One memory node as the daemon (or the simulator) last sampled it.
struct NodeState {
  unsigned node = 0;
  unsigned tier = 0;  // 0 = fastest
  bool has_cpus = false;
  std::uint64_t total_bytes = 0;
  std::uint64_t free_bytes = 0;
  std::uint64_t high_watermark_bytes = 0;  // the kernel's zone "high" sum
};

/// A range of one process's memory with its heat: what the HeatMap knows
/// about it plus where it is now.
struct Region {
  pid_t pid = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;       // exclusive
  int node = -1;               // memory node now; -1 unknown / not resident
  double heat = 0;             // decayed access score (HeatMap), comparable within a tick
  std::uint64_t accesses = 0;  // samples in the last epoch
  double last_access_s = -1;   // snapshot clock of the last sample; -1 never seen
  std::uint64_t bytes() const { return end - start; }
};

/// One registered workload as the daemon last sampled it.
struct WorkloadState {
  std::string id;
  WorkloadClass workload_class = WorkloadClass::normal;
  int priority = 0;
  std::vector<pid_t> pids;
  std::vector<int> cpu_nodes;  // nodes its threads run on (most run time first)
  std::map<unsigned, std::uint64_t> resident_bytes_by_node;
  std::optional<std::uint64_t> quota_bytes;  // fast-tier quota, resolved to bytes
  std::vector<Region> regions;               // empty when no heat source watches it
  double budget_mbps = 0;                    // per-workload migration budget; 0 = none
  /// Memory nodes it may use (its cpuset's mems: the kernel refuses moves
  /// elsewhere); empty = any node.
  std::vector<unsigned> allowed_nodes;
};

struct Snapshot {
  const Topology* topology = nullptr;  // may be null (simulator); use the fields below
  std::vector<NodeState> nodes;
  /// Load latency in ns from a CPU node (row) to a memory node (column),
  /// indexed by node id; empty when unknown (policies fall back to tiers).
  std::vector<std::vector<double>> latency_ns;
  std::vector<WorkloadState> workloads;
  double now_s = 0;        // monotonic seconds, from the caller's clock
  double tick_s = 1;       // time since the previous tick
  double budget_mbps = 0;  // global migration budget for this tick; 0 = none
  /// Offline suppression says the fast tier is short for online work: offline
  /// data has no claim on it this tick (policies that rank by class demote it
  /// first and promote none of it).
  bool demote_offline_first = false;
};

/// Move [start, end) of pid's address space to target_node.
struct Move {
  pid_t pid = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  unsigned target_node = 0;
  std::string workload_id;
  std::string reason;  // "promote: hot on tier 1", ...
};

struct Plan {
  std::vector<Move> moves;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual Plan plan(const Snapshot& snapshot) = 0;
};

/// A declared numeric parameter with its default and bounds.
struct ParamSpec {
  std::string name;
  double default_value = 0;
  double min = 0;
  double max = 0;
  std::string description;
};

using Params = std::map<std::string, double>;

struct PolicyInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  /// Builds the policy with complete, validated parameters.
  std::unique_ptr<Policy> (*make)(const Params& params) = nullptr;
};

/// Every registered policy, in the order `tierd --list-policies` prints them.
const std::vector<PolicyInfo>& registered_policies();
/// nullptr when no policy has that name.
const PolicyInfo* find_policy(const std::string& name);
/// "static, ..." for error messages.
std::string policy_names();

/// The declared defaults overlaid with `given`. Throws std::invalid_argument
/// naming the parameter for an undeclared name or a value out of bounds.
Params resolve_params(const PolicyInfo& info, const Params& given);

}  // namespace tier::policy
