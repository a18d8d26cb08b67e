// CpuInventory: the machine's usable logical CPUs with their physical core,
// package and NUMA node — what the pool layout needs to hand out whole cores.
//
// Contract: an immutable list of online, allowed CPUs (offline and disallowed
// PUs are left out), sorted by id. Every CPU names a machine-wide physical
// core index; cores() lists each core's SMT siblings in machine order (the
// order hwloc walks the tree: package by package, core by core), so index i
// of cores() is core i. A CPU's node is the kernel's nodeN/cpulist when a
// sysfs tree is at hand, else hwloc's inference (XML); it is empty when no
// node claims the CPU. Tests build inventories directly from LogicalCpus.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "tier/cpu/cpulist.hpp"
#include "tier/topology/topology.hpp"

namespace tier::cpu {

struct LogicalCpu {
  unsigned id = 0;
  unsigned core = 0;  // machine-wide physical core index (dense, machine order)
  unsigned package = 0;
  std::optional<unsigned> node;
};

class CpuInventory {
 public:
  CpuInventory() = default;
  /// Sorts by id. Throws std::invalid_argument on a duplicate CPU id or when
  /// core indices are not dense (0..n-1): cores() is indexed by them.
  explicit CpuInventory(std::vector<LogicalCpu> cpus);

  const std::vector<LogicalCpu>& cpus() const { return cpus_; }
  /// Every CPU of the inventory.
  const CpuList& all() const { return all_; }
  /// SMT siblings per physical core, index = LogicalCpu::core.
  const std::vector<CpuList>& cores() const { return cores_; }
  /// The CPU with this id, or null when it is not in the inventory.
  const LogicalCpu* cpu(unsigned id) const;
  /// CPUs whose node is n (empty for CPU-less or unknown nodes).
  CpuList cpus_of_node(unsigned n) const;
  /// Node of a CPU; nullopt when unknown or the CPU is not in the inventory.
  std::optional<unsigned> node_of(unsigned cpu) const;
  /// Nodes that hold at least one CPU, ascending.
  const std::vector<unsigned>& nodes() const { return nodes_; }
  /// Most hardware threads on one core (1 without SMT, 0 when empty).
  unsigned smt_width() const { return smt_width_; }
  /// One past the highest CPU id (0 when empty): size for per-CPU tables.
  unsigned id_limit() const { return cpus_.empty() ? 0 : cpus_.back().id + 1; }

 private:
  std::vector<LogicalCpu> cpus_;
  std::vector<int> index_of_id_;  // id → position in cpus_, -1 when absent
  CpuList all_;
  std::vector<CpuList> cores_;
  std::vector<unsigned> nodes_;
  unsigned smt_width_ = 0;
};

/// Loads the inventory with hwloc from the same sources load_topology() reads
/// (live, options.root as a gathered tree, or options.hwloc_xml). Throws
/// TopologyError when hwloc cannot load the input.
CpuInventory load_cpu_inventory(const TopologyOptions& options = {});

}  // namespace tier::cpu
