// Internal: the memory nodes that go with a set of CPUs, in a class's order.
//
// A pool's memory is the nodes of its CPUs plus the CPU-less nodes that hang
// off them: those whose hwloc locality (local_cpus) intersects the CPUs, or,
// when a CPU-less node has no locality, those whose nearest CPU node by SLIT
// distance is among the CPUs' nodes (with no distances either, the node is
// near everything). Online and default workloads get their CPU nodes first,
// then CPU-less nodes fastest tier first; offline workloads get CPU-less
// nodes slowest tier first, then their CPU nodes.
#pragma once

#include <vector>

#include "tier/cpu/cpu_inventory.hpp"
#include "tier/protocol/workload_class.hpp"
#include "tier/topology/topology.hpp"

namespace tier::cpu::detail {

class MemoryAlignment {
 public:
  MemoryAlignment(const CpuInventory& inventory, const Topology& topology);
  std::vector<unsigned> nodes_for(const CpuList& cpus, WorkloadClass cls) const;

 private:
  struct CpulessNode {
    unsigned id = 0;
    unsigned tier = 0;
    std::vector<bool> local;                  // by CPU id; empty when hwloc gave no locality
    std::vector<unsigned> nearest_cpu_nodes;  // SLIT fallback; empty = near everything
  };
  const CpuInventory& inventory_;
  std::vector<CpulessNode> cpuless_;  // sorted by (tier, id)
};

}  // namespace tier::cpu::detail
