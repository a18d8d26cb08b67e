// load_cpu_inventory(): PUs, cores and packages from hwloc, nodes from the
// kernel's nodeN/cpulist when a sysfs tree is at hand (see cpu_inventory.hpp).
#include <map>

#include "tier/cpu/cpu_inventory.hpp"
#include "topology/hwloc_open.hpp"

namespace tier::cpu {

namespace {

hwloc_obj_t ancestor(hwloc_obj_t obj, hwloc_obj_type_t type) {
  for (hwloc_obj_t up = obj->parent; up != nullptr; up = up->parent) {
    if (up->type == type) return up;
  }
  return nullptr;
}

// The kernel's own CPU → node map, as load_topology() prefers it; empty when
// the tree has no node directory (then hwloc's inference stands).
std::map<unsigned, unsigned> sysfs_cpu_nodes(const SysRoot& root) {
  std::map<unsigned, unsigned> nodes;
  for (unsigned node : numbered_entries(root, "/sys/devices/system/node", "node")) {
    auto text = root.read("/sys/devices/system/node/node" + std::to_string(node) + "/cpulist");
    auto cpus = text ? CpuList::parse(*text) : std::nullopt;
    if (!cpus) continue;
    for (unsigned cpu : cpus->ids()) nodes[cpu] = node;
  }
  return nodes;
}

}  // namespace

CpuInventory load_cpu_inventory(const TopologyOptions& options) {
  detail::HwlocHandle topology = detail::open_hwloc(options.root, options.hwloc_xml, false);
  hwloc_topology_t raw = topology.get();
  const std::map<unsigned, unsigned> kernel_nodes =
      options.hwloc_xml ? std::map<unsigned, unsigned>{} : sysfs_cpu_nodes(options.root);
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(raw);

  std::vector<LogicalCpu> cpus;
  std::map<hwloc_obj_t, unsigned> core_index;  // hwloc Core → dense machine-order index
  unsigned next_core = 0;
  // hwloc walks PUs in logical (machine) order: package by package, core by core.
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_PU, nullptr); pu != nullptr;
       pu = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_PU, pu)) {
    if (!hwloc_bitmap_isset(allowed, static_cast<int>(pu->os_index))) continue;
    LogicalCpu cpu;
    cpu.id = pu->os_index;
    // A PU without a Core object (some architectures, fake trees) is a core of its own.
    hwloc_obj_t core = ancestor(pu, HWLOC_OBJ_CORE);
    if (core == nullptr) {
      cpu.core = next_core++;
    } else {
      auto [it, added] = core_index.emplace(core, next_core);
      if (added) ++next_core;
      cpu.core = it->second;
    }
    hwloc_obj_t package = ancestor(pu, HWLOC_OBJ_PACKAGE);
    cpu.package = package == nullptr                         ? 0
                  : package->os_index == HWLOC_UNKNOWN_INDEX ? package->logical_index
                                                             : package->os_index;
    if (!kernel_nodes.empty()) {
      if (auto it = kernel_nodes.find(cpu.id); it != kernel_nodes.end()) cpu.node = it->second;
    } else if (hwloc_obj_t node = detail::numa_node_of_pu(pu)) {
      cpu.node = node->os_index;
    }
    cpus.push_back(cpu);
  }
  return CpuInventory(std::move(cpus));
}

}  // namespace tier::cpu
