// Internal: opening hwloc on the sources tier reads (the live system, a
// gathered sysfs tree, an lstopo XML export) and the small conversions both
// readers of it need (the topology snapshot and the CPU inventory).
#pragma once

#include <hwloc.h>

#include <memory>
#include <optional>
#include <string>

#include "tier/cpu/cpulist.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::detail {

using HwlocHandle = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

/// Loads hwloc from `xml` when given, else from `root` (live, or a gathered
/// tree through HWLOC_FSROOT). Disallowed PUs and nodes are included (tier
/// manages the whole machine; callers filter with the allowed sets). `io`
/// keeps the important PCI/OS devices. Throws TopologyError naming the input
/// when hwloc cannot load it.
HwlocHandle open_hwloc(const SysRoot& root, const std::optional<std::string>& xml, bool io);

/// An hwloc bitmap as a CpuList (empty for null).
CpuList to_cpulist(hwloc_const_bitmap_t set);

/// The NUMA node a PU belongs to: the first "plain" node (no DAX device, not
/// HBM/NVM/SPM) attached to its closest ancestor with memory children, else
/// the first node there. hwloc gives every node the cpuset of the object it
/// hangs off, so this rule is what tells a package's DRAM from its CPU-less
/// HBM or CXL neighbours when no sysfs nodeN/cpulist is at hand (XML).
hwloc_obj_t numa_node_of_pu(hwloc_obj_t pu);

}  // namespace tier::detail
