// load_topology(): hwloc + sysfs evidence → kinds → tier ranks.
#include <algorithm>
#include <tuple>

#include "tier/topology/tier_ranking.hpp"
#include "tier/topology/topology.hpp"
#include "topology/topology_sources.hpp"

namespace tier {

namespace {

void validate_input(const TopologyOptions& options) {
  if (options.hwloc_xml) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*options.hwloc_xml, ec)) {
      throw TopologyError("hwloc XML '" + *options.hwloc_xml +
                          "' is not a readable file (expected an lstopo --of xml export)");
    }
    return;
  }
  if (options.root.is_live()) return;
  const auto& dir = options.root.root();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw TopologyError("--root '" + dir.string() + "' is not a directory");
  }
  if (!options.root.exists("/sys/devices/system/node") &&
      !options.root.exists("/sys/devices/system/cpu")) {
    throw TopologyError("--root '" + dir.string() + "' is not a sysfs tree: expected " +
                        dir.string() + "/sys/devices/system/{node,cpu}");
  }
}

// Kind from evidence only; the evidence string says which.
void decide_kind(Node& node, const detail::HwlocView& view,
                 const std::map<unsigned, detail::DaxEvidence>& dax) {
  auto find = [&](const std::map<unsigned, std::string>& m) {
    auto it = m.find(node.id);
    return it == m.end() ? std::string() : it->second;
  };
  const std::string subtype = find(view.subtype);
  const std::string dax_parent = find(view.dax_parent);
  const std::string dax_type = find(view.dax_type);
  auto it = dax.find(node.id);
  const detail::DaxEvidence* sysfs_dax = it == dax.end() ? nullptr : &it->second;

  auto contains = [](const std::string& text, const char* what) {
    return text.find(what) != std::string::npos;
  };
  if (sysfs_dax != nullptr && sysfs_dax->technology == "cxl") {
    node.kind = MemoryKind::cxl;
    node.kind_evidence =
        "dax device " + sysfs_dax->device + " of CXL region (" + sysfs_dax->path + ")";
  } else if (contains(subtype, "CXL") || contains(dax_parent, "decoder") ||
             contains(dax_parent, "cxl")) {
    node.kind = MemoryKind::cxl;
    node.kind_evidence =
        "hwloc: " + (subtype.empty() ? "DAXParent=" + dax_parent : "subtype " + subtype);
  } else if (sysfs_dax != nullptr && sysfs_dax->technology == "pmem") {
    node.kind = MemoryKind::pmem;
    node.kind_evidence =
        "dax device " + sysfs_dax->device + " of NVDIMM region (" + sysfs_dax->path + ")";
  } else if (subtype == "NVM" || dax_type == "NVM" || contains(dax_parent, "ndbus")) {
    node.kind = MemoryKind::pmem;
    node.kind_evidence =
        "hwloc: " + (subtype == "NVM" ? std::string("subtype NVM") : "DAXType=" + dax_type);
  } else if (subtype == "HBM" || subtype == "MCDRAM") {
    node.kind = MemoryKind::hbm;
    node.kind_evidence = "hwloc: subtype " + subtype;
  } else if (!node.cpus.empty()) {
    node.kind = MemoryKind::dram;
    node.kind_evidence = "node has CPUs " + node.cpus.to_string();
  } else if (subtype == "DRAM") {
    node.kind = MemoryKind::dram;
    node.kind_evidence = "hwloc: subtype DRAM";
  } else {
    node.kind = MemoryKind::cpuless;
    node.kind_evidence = "memory-only node, technology unknown";
    if (sysfs_dax != nullptr)
      node.kind_evidence += " (EFI soft-reserved dax " + sysfs_dax->device + ")";
    if (!subtype.empty()) node.kind_evidence += " (hwloc subtype " + subtype + ")";
  }
}

}  // namespace

Topology load_topology(const TopologyOptions& options) {
  validate_input(options);
  detail::HwlocView view = detail::read_hwloc(options.root, options.hwloc_xml);
  const bool have_sysfs = !options.hwloc_xml.has_value();

  std::vector<unsigned> ids;
  for (const auto& node : view.nodes) ids.push_back(node.id);

  std::vector<MemoryTier> memory_tiers;
  std::map<unsigned, detail::DaxEvidence> dax;
  std::vector<NodePerf> perf = view.perf;
  auto distances = view.distances;
  if (have_sysfs) {
    memory_tiers = detail::read_memory_tiers(options.root);
    dax = detail::read_dax_evidence(options.root);
    if (auto hmat = detail::read_hmat_access(options.root, ids); !hmat.empty()) {
      auto extra = detail::read_acpi_hmat_extra_pairs(options.root, hmat);
      hmat.insert(hmat.end(), extra.begin(), extra.end());
      perf = std::move(hmat);
    }
    if (distances.empty()) distances = detail::read_sysfs_distances(options.root, ids);
  }

  for (auto& node : view.nodes) {
    if (have_sysfs) {
      // The kernel's own list beats hwloc's inference (see assign_cpus_to_nodes).
      auto text =
          options.root.read("/sys/devices/system/node/node" + std::to_string(node.id) + "/cpulist");
      if (auto cpus = text ? CpuList::parse(*text) : std::nullopt) {
        std::vector<unsigned> online;
        for (unsigned cpu : cpus->ids()) {
          if (node.local_cpus.contains(cpu)) online.push_back(cpu);
        }
        node.cpus = CpuList(online);
      }
      node.memory_free_bytes = detail::read_node_free_bytes(options.root, node.id);
    }
    for (const auto& tier : memory_tiers) {
      if (std::find(tier.nodes.begin(), tier.nodes.end(), node.id) != tier.nodes.end()) {
        node.kernel_memory_tier = tier.id;
      }
    }
    decide_kind(node, view, dax);
  }

  auto adistance = hmat_abstract_distance(view.nodes, perf);
  auto nearest = nearest_cpu_distance(view.nodes, distances);
  std::vector<TierEvidence> evidence;
  for (const auto& node : view.nodes) {
    TierEvidence e;
    e.node = node.id;
    // A node the kernel placed in a memory tier has memory even when its size
    // is unknown (nodeN/meminfo unreadable): ranking it as memoryless would
    // put it in tier 0 with the fastest nodes.
    e.has_memory = node.memory_total_bytes > 0 || node.kernel_memory_tier.has_value();
    e.kernel_tier = node.kernel_memory_tier;
    if (auto it = adistance.find(node.id); it != adistance.end()) e.abstract_distance = it->second;
    if (auto it = nearest.find(node.id); it != nearest.end()) e.nearest_cpu_distance = it->second;
    evidence.push_back(e);
  }
  TierAssignment assignment = rank_tiers(evidence, options.tier_override);
  for (auto& node : view.nodes) {
    node.tier = assignment.rank.at(node.id);
    node.tier_source = assignment.source.at(node.id);
  }

  for (auto& device : view.devices) {
    if (have_sysfs && !device.numa_node) {
      device.numa_node = detail::read_pci_numa_node(options.root, device.pci);
    }
  }

  std::sort(perf.begin(), perf.end(), [](const NodePerf& a, const NodePerf& b) {
    return std::tie(a.initiator, a.target, a.access_class) <
           std::tie(b.initiator, b.target, b.access_class);
  });
  TopologyData data;
  data.warnings = tier_consistency_warnings(view.nodes, adistance);
  if (have_sysfs) {
    if (auto warning = detail::memory_accounting_warning(options.root, ids)) {
      data.warnings.push_back(*warning);
    }
  }
  if (options.hwloc_xml) {
    data.source = {TopologySource::Kind::xml, *options.hwloc_xml};
  } else if (!options.root.is_live()) {
    data.source = {TopologySource::Kind::fsroot, options.root.root().string()};
  } else {
    data.source = {TopologySource::Kind::live, "/"};
  }
  data.nodes = std::move(view.nodes);
  data.distances = std::move(distances);
  data.perf = std::move(perf);
  data.memory_tiers = std::move(memory_tiers);
  data.device_locality = device_locality_matrix(view.devices);
  data.devices = std::move(view.devices);
  data.tier_source = assignment.overall;
  return Topology(std::move(data));
}

}  // namespace tier
