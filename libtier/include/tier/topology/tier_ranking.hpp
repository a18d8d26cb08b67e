// Tier ranking: the pure rules that turn per-node evidence into tier ranks.
//
// Kept apart from loading so the rules are unit-tested on their own and
// documented in one place (docs/topology.md). Order of evidence:
//   1. config override for the nodes it names;
//   2. kernel memory tiers, when the nodes with memory sit in more than one;
//   3. HMAT: an abstract distance computed like the kernel's
//      (576 × mean(latency ratio, inverse bandwidth ratio) vs. local DRAM),
//      bucketed in chunks of 128 as the kernel does;
//   4. SLIT: distance from the nearest node with CPUs, grouped in bands where a
//      new band starts more than 20% above the previous band's first value;
//   5. otherwise every node is tier 0 (`single`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tier/topology/topology.hpp"

namespace tier {

struct TierEvidence {
  unsigned node = 0;
  bool has_memory = true;
  std::optional<int> kernel_tier;                // memory_tierN id
  std::optional<double> abstract_distance;       // from HMAT, see hmat_abstract_distance()
  std::optional<unsigned> nearest_cpu_distance;  // SLIT distance from the nearest CPU node
};

struct TierAssignment {
  std::map<unsigned, unsigned> rank;
  std::map<unsigned, TierSource> source;
  TierSource overall = TierSource::single;
};

/// Kernel-style abstract distance of each node from HMAT figures, relative to
/// the average local performance of the nodes with CPUs. Nodes without usable
/// figures (or all nodes, when no CPU node has local figures) get nullopt.
std::map<unsigned, double> hmat_abstract_distance(const std::vector<Node>& nodes,
                                                  const std::vector<NodePerf>& perf);

/// SLIT distance from each node to the nearest node with CPUs.
std::map<unsigned, unsigned> nearest_cpu_distance(
    const std::vector<Node>& nodes, const std::vector<std::vector<unsigned>>& distances);

TierAssignment rank_tiers(const std::vector<TierEvidence>& evidence,
                          const std::map<unsigned, unsigned>& tier_override);

/// Where the kernel's memory tiers disagree with the evidence, in words:
///  - a memory-only node the kernel put in the same tier as DRAM nodes with
///    CPUs although HMAT ranks it slower (6.1 kernels: no demotion to it);
///  - a memory-only node without HMAT figures whose kernel tier is therefore
///    a default guess (dax/CXL memory defaults to 5× DRAM distance), ranked
///    against nodes that do have figures;
///  - two nodes whose kernel order is the reverse of their HMAT order.
std::vector<std::string> tier_consistency_warnings(
    const std::vector<Node>& nodes, const std::map<unsigned, double>& abstract_distance);

}  // namespace tier
