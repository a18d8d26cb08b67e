// Internal: the two readers load_topology() combines. hwloc gives the object
// tree (nodes, CPU sets, memory, subtypes, distances, PCI locality, memory
// attributes for XML); sysfs gives what hwloc 2.9 does not expose or exposes
// less directly (free memory, kernel memory tiers, HMAT access classes, the
// dax/CXL links that prove a node's technology).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"

namespace tier::detail {

/// What hwloc reported, before sysfs evidence and ranking are merged in.
struct HwlocView {
  std::vector<Node> nodes;                       // id, cpus, total memory; kind not decided
  std::map<unsigned, std::string> subtype;       // hwloc subtype: "DRAM", "HBM", "NVM", ...
  std::map<unsigned, std::string> dax_parent;    // DAXParent info of the node
  std::map<unsigned, std::string> dax_type;      // DAXType info of the node
  std::vector<std::vector<unsigned>> distances;  // indexed like nodes; empty if none
  std::vector<NodePerf> perf;                    // from hwloc memory attributes
  std::vector<Device> devices;
};

/// Loads hwloc from the live system, a gathered tree (HWLOC_FSROOT) or XML.
/// Throws TopologyError when hwloc cannot load the input.
HwlocView read_hwloc(const SysRoot& root, const std::optional<std::string>& xml);

/// Free bytes of a node from nodeN/meminfo.
std::optional<std::uint64_t> read_node_free_bytes(const SysRoot& root, unsigned node);
/// A warning when the nodes' MemTotal (nodeN/meminfo) does not add up to
/// /proc/meminfo's MemTotal: some VMs (e.g. with memory hot-plugged through a
/// balloon) account memory to no node, and per-node numbers then understate.
std::optional<std::string> memory_accounting_warning(const SysRoot& root,
                                                     const std::vector<unsigned>& node_ids);
/// SLIT rows from nodeN/distance, indexed like `node_ids`; empty if incomplete.
std::vector<std::vector<unsigned>> read_sysfs_distances(const SysRoot& root,
                                                        const std::vector<unsigned>& node_ids);
/// Kernel memory tiers from /sys/devices/virtual/memory_tiering.
std::vector<MemoryTier> read_memory_tiers(const SysRoot& root);
/// HMAT access classes 0 and 1 (nodeN/accessK/initiators).
std::vector<NodePerf> read_hmat_access(const SysRoot& root, const std::vector<unsigned>& node_ids);

/// Initiator→target pairs the sysfs access classes do not show, from the raw
/// ACPI HMAT (/sys/firmware/acpi/tables/HMAT, root only) with PXMs mapped to
/// nodes through SRAT. Returned only when the table agrees with every pair
/// sysfs does show (so a wrong PXM mapping is never reported); else empty.
std::vector<NodePerf> read_acpi_hmat_extra_pairs(const SysRoot& root,
                                                 const std::vector<NodePerf>& sysfs_perf);

/// Technology evidence for a node from the dax bus: "cxl" or "pmem" with the
/// sysfs path that proves it, or "hmem" (EFI soft-reserved) as a hint.
struct DaxEvidence {
  std::string technology;  // "cxl", "pmem", "hmem"
  std::string device;      // e.g. "dax0.0"
  std::string path;        // resolved sysfs path of the device
};
std::map<unsigned, DaxEvidence> read_dax_evidence(const SysRoot& root);

/// NUMA node of a PCI device from /sys/bus/pci/devices/BDF/numa_node.
std::optional<unsigned> read_pci_numa_node(const SysRoot& root, const std::string& bdf);

}  // namespace tier::detail
