// hwloc reader for the topology snapshot (see topology_sources.hpp).
#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "topology/hwloc_open.hpp"
#include "topology/topology_sources.hpp"

namespace tier::detail {

namespace {

std::string info(hwloc_obj_t obj, const char* name) {
  const char* value = hwloc_obj_get_info_by_name(obj, name);
  return value != nullptr ? value : "";
}

std::optional<unsigned> single_node(hwloc_const_nodeset_t nodeset) {
  if (nodeset == nullptr || hwloc_bitmap_weight(nodeset) != 1) return std::nullopt;
  return static_cast<unsigned>(hwloc_bitmap_first(nodeset));
}

DeviceType classify_pci(unsigned class_id, hwloc_obj_t pci) {
  // OS devices below tell more than the class code (a CXL memdev sits on a
  // 0x0502 function; a GPU may be a 0x0380 "other display" function).
  for (hwloc_obj_t child = pci->io_first_child; child != nullptr; child = child->next_sibling) {
    if (child->type != HWLOC_OBJ_OS_DEVICE) continue;
    if (child->subtype != nullptr && std::strstr(child->subtype, "CXL") != nullptr) {
      return DeviceType::cxl;
    }
    if (child->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU ||
        child->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC) {
      return DeviceType::gpu;
    }
  }
  switch (class_id >> 8) {
    case 0x03:
      return DeviceType::gpu;
    case 0x02:
      return DeviceType::nic;
    case 0x12:
      return DeviceType::accelerator;
    case 0x0b:
      return DeviceType::accelerator;  // processors / co-processors
    default:
      break;
  }
  if (class_id == 0x0108) return DeviceType::nvme;
  if (class_id == 0x0502) return DeviceType::cxl;
  if ((class_id >> 8) == 0x01) return DeviceType::storage;
  if (class_id == 0x0207) return DeviceType::nic;  // InfiniBand
  return DeviceType::other;
}

std::string pci_id(hwloc_obj_t pci) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
                pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
  return buffer;
}

std::vector<Device> read_devices(hwloc_topology_t topology) {
  std::vector<Device> devices;
  for (hwloc_obj_t pci = hwloc_get_next_pcidev(topology, nullptr); pci != nullptr;
       pci = hwloc_get_next_pcidev(topology, pci)) {
    Device device;
    device.type = classify_pci(pci->attr->pcidev.class_id, pci);
    if (device.type == DeviceType::other) continue;  // only what matters for placement
    device.pci = pci_id(pci);
    for (hwloc_obj_t child = pci->io_first_child; child != nullptr; child = child->next_sibling) {
      if (child->type == HWLOC_OBJ_OS_DEVICE && child->name != nullptr) {
        if (!device.name.empty()) device.name += ",";
        device.name += child->name;
      }
    }
    if (device.name.empty()) device.name = device.pci;
    for (hwloc_obj_t up = pci->parent; up != nullptr && up->type == HWLOC_OBJ_BRIDGE;
         up = up->parent) {
      device.bridge_path.insert(device.bridge_path.begin(), std::to_string(up->gp_index));
    }
    hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topology, pci);
    if (ancestor != nullptr) device.numa_node = single_node(ancestor->nodeset);
    devices.push_back(std::move(device));
  }
  return devices;
}

std::vector<std::vector<unsigned>> read_distances(hwloc_topology_t topology,
                                                  const std::vector<Node>& nodes) {
  unsigned count = 1;
  hwloc_distances_s* distances = nullptr;
  if (hwloc_distances_get_by_name(topology, "NUMALatency", &count, &distances, 0) != 0 ||
      count == 0) {
    return {};
  }
  std::vector<std::vector<unsigned>> matrix(nodes.size(), std::vector<unsigned>(nodes.size(), 0));
  std::vector<int> index(nodes.size(), -1);
  for (unsigned i = 0; i < distances->nbobjs; ++i) {
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      if (distances->objs[i]->os_index == nodes[n].id) index[n] = static_cast<int>(i);
    }
  }
  bool complete = true;
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    for (std::size_t b = 0; b < nodes.size(); ++b) {
      if (index[a] < 0 || index[b] < 0) {
        complete = false;
        continue;
      }
      matrix[a][b] = static_cast<unsigned>(
          distances->values[static_cast<unsigned>(index[a]) * distances->nbobjs +
                            static_cast<unsigned>(index[b])]);
    }
  }
  hwloc_distances_release(topology, distances);
  return complete ? matrix : std::vector<std::vector<unsigned>>{};
}

// Memory attributes carry HMAT figures in XML exports (and mirror sysfs
// access classes on live systems). Initiators are CPU sets: map each to the
// node whose CPUs it covers.
std::vector<NodePerf> read_memattrs(hwloc_topology_t topology, const std::vector<Node>& nodes) {
  struct Attr {
    hwloc_memattr_id_t id;
    std::optional<std::uint64_t> NodePerf::*field;
  };
  const Attr attrs[] = {
      {HWLOC_MEMATTR_ID_READ_LATENCY, &NodePerf::read_latency_ns},
      {HWLOC_MEMATTR_ID_WRITE_LATENCY, &NodePerf::write_latency_ns},
      {HWLOC_MEMATTR_ID_READ_BANDWIDTH, &NodePerf::read_bandwidth_mbps},
      {HWLOC_MEMATTR_ID_WRITE_BANDWIDTH, &NodePerf::write_bandwidth_mbps},
  };
  std::map<std::pair<unsigned, unsigned>, NodePerf> pairs;
  for (const auto& target : nodes) {
    hwloc_obj_t target_obj = hwloc_get_numanode_obj_by_os_index(topology, target.id);
    if (target_obj == nullptr) continue;
    for (const auto& attr : attrs) {
      unsigned count = 0;
      if (hwloc_memattr_get_initiators(topology, attr.id, target_obj, 0, &count, nullptr,
                                       nullptr) != 0 ||
          count == 0) {
        continue;
      }
      std::vector<hwloc_location> initiators(count);
      std::vector<hwloc_uint64_t> values(count);
      if (hwloc_memattr_get_initiators(topology, attr.id, target_obj, 0, &count, initiators.data(),
                                       values.data()) != 0) {
        continue;
      }
      for (unsigned i = 0; i < count; ++i) {
        if (initiators[i].type != HWLOC_LOCATION_TYPE_CPUSET) continue;
        for (const auto& initiator : nodes) {
          hwloc_obj_t init_obj = hwloc_get_numanode_obj_by_os_index(topology, initiator.id);
          if (init_obj == nullptr || initiator.cpus.empty() ||
              !hwloc_bitmap_isincluded(init_obj->cpuset, initiators[i].location.cpuset)) {
            continue;
          }
          NodePerf& entry = pairs[{initiator.id, target.id}];
          entry.initiator = initiator.id;
          entry.target = target.id;
          entry.source = "hwloc";
          entry.*(attr.field) = values[i];
        }
      }
    }
  }
  std::vector<NodePerf> perf;
  for (auto& [key, entry] : pairs) perf.push_back(entry);
  return perf;
}

// A CPU belongs to the node numa_node_of_pu() names. The loader replaces this
// with sysfs nodeN/cpulist when a tree is available; this rule is what XML
// exports rely on.
void assign_cpus_to_nodes(hwloc_topology_t topology, HwlocView& view) {
  std::map<unsigned, std::vector<unsigned>> cpus;
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, nullptr); pu != nullptr;
       pu = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, pu)) {
    if (hwloc_obj_t node = numa_node_of_pu(pu)) cpus[node->os_index].push_back(pu->os_index);
  }
  for (auto& node : view.nodes) node.cpus = CpuList(cpus[node.id]);
}

}  // namespace

HwlocView read_hwloc(const SysRoot& root, const std::optional<std::string>& xml) {
  HwlocHandle topology = open_hwloc(root, xml, /*io=*/true);
  hwloc_topology_t raw = topology.get();

  HwlocView view;
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_NUMANODE, nullptr);
       obj != nullptr; obj = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_NUMANODE, obj)) {
    Node node;
    node.id = obj->os_index;
    node.local_cpus = to_cpulist(obj->cpuset);
    node.allowed = hwloc_bitmap_isset(hwloc_topology_get_allowed_nodeset(raw), obj->os_index);
    node.memory_total_bytes = obj->attr->numanode.local_memory;
    if (obj->subtype != nullptr) view.subtype[node.id] = obj->subtype;
    if (auto parent = info(obj, "DAXParent"); !parent.empty()) view.dax_parent[node.id] = parent;
    if (auto type = info(obj, "DAXType"); !type.empty()) view.dax_type[node.id] = type;
    view.nodes.push_back(std::move(node));
  }
  std::sort(view.nodes.begin(), view.nodes.end(),
            [](const Node& a, const Node& b) { return a.id < b.id; });
  assign_cpus_to_nodes(raw, view);
  view.distances = read_distances(raw, view.nodes);
  view.perf = read_memattrs(raw, view.nodes);
  view.devices = read_devices(raw);
  return view;
}

}  // namespace tier::detail
