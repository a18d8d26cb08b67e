// The simulator's machine: memory nodes with capacities and tiers, and the
// load latency from every CPU node to every memory node (docs/simulator.md,
// "Machine model").
//
// Built explicitly (two_tier() or by hand) or from a tier::Topology: HMAT
// read latency where the topology knows it, else SLIT distance x
// ns_per_distance (default 10 ns per unit: the local distance 10 models
// 100 ns, a remote 21 models 210 ns).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace tier {
class Topology;
}

namespace tier::sim {

struct MachineNode {
  unsigned id = 0;
  unsigned tier = 0;  // 0 = fast
  bool has_cpus = false;
  std::uint64_t capacity_bytes = 0;        // what the simulated workloads may use
  std::uint64_t high_watermark_bytes = 0;  // reported to policies; not enforced
};

struct Machine {
  std::vector<MachineNode> nodes;  // any order, unique ids
  /// latency_ns[cpu node id][memory node id] (square over 0..max id); rows of
  /// nodes without CPUs may stay 0. Same shape as policy::Snapshot::latency_ns.
  std::vector<std::vector<double>> latency_ns;
  /// SLIT distances indexed like latency_ns; empty when unknown. When known
  /// they order first-touch fallback, as in the kernel's zonelists.
  std::vector<std::vector<unsigned>> distance;

  const MachineNode* node(unsigned id) const;
  double latency(unsigned cpu_node, unsigned memory_node) const;
  /// Capacity of the tier-0 nodes.
  std::uint64_t fast_capacity_bytes() const;
  /// Memory nodes in first-touch fallback order from `from`: that node first,
  /// then by SLIT distance from it when known, else by latency (ties: lower
  /// id), like the kernel's zonelist.
  std::vector<unsigned> fallback_order(unsigned from) const;
};

/// Throws std::invalid_argument: no nodes, duplicate ids, latency matrix
/// smaller than the largest id, a CPU node row with a missing/negative entry.
void validate(const Machine& machine);

/// Node 0: tier 0 with CPUs, fast_bytes, fast_ns local. Node 1: tier 1
/// without CPUs (CXL-like), slow_bytes, slow_ns from node 0.
Machine two_tier(std::uint64_t fast_bytes, std::uint64_t slow_bytes, double fast_ns = 100,
                 double slow_ns = 250);

struct FromTopologyOptions {
  double ns_per_distance = 10;  // SLIT fallback scale
  /// Replace a node's capacity (default: its MemTotal from the topology).
  std::map<unsigned, std::uint64_t> capacity_bytes;
  /// Replace every tier-0 node's capacity (applied before capacity_bytes).
  std::optional<std::uint64_t> fast_capacity_bytes;
};

/// Nodes, tiers and capacities of the topology; latency from HMAT read
/// latency (perf_for) when known, else SLIT distance x ns_per_distance, else
/// (neither known) ns_per_distance x 10 local and x 20 remote; the SLIT
/// distances themselves for the fallback order.
Machine machine_from_topology(const Topology& topology, const FromTopologyOptions& options = {});

}  // namespace tier::sim
