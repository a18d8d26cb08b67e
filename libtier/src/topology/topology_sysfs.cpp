// sysfs readers for the topology snapshot (see topology_sources.hpp).
#include <sstream>

#include "topology/topology_sources.hpp"

namespace tier::detail {

namespace {

const std::string kNodeDir = "/sys/devices/system/node";

std::string node_path(unsigned node) {
  return kNodeDir + "/node" + std::to_string(node);
}

// HMAT figures: the kernel writes 0 for a figure the firmware did not give.
std::optional<std::uint64_t> read_figure(const SysRoot& root, const std::string& path) {
  auto value = root.read_int(path);
  if (!value || *value <= 0) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

}  // namespace

namespace {

// "Node 0 MemFree:   123 kB" (node meminfo) or "MemTotal:   123 kB" (/proc).
std::optional<std::uint64_t> meminfo_bytes(const SysRoot& root, const std::string& path,
                                           const std::string& key) {
  auto text = root.read(path);
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    auto at = line.find(key + ":");
    if (at == std::string::npos) continue;
    std::istringstream value(line.substr(at + key.size() + 1));
    std::uint64_t kib = 0;
    if (value >> kib) return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> read_node_free_bytes(const SysRoot& root, unsigned node) {
  return meminfo_bytes(root, node_path(node) + "/meminfo", "MemFree");
}

std::optional<std::string> memory_accounting_warning(const SysRoot& root,
                                                     const std::vector<unsigned>& node_ids) {
  auto system = meminfo_bytes(root, "/proc/meminfo", "MemTotal");
  if (!system || *system == 0) return std::nullopt;
  std::uint64_t nodes = 0;
  for (unsigned id : node_ids) {
    auto total = meminfo_bytes(root, node_path(id) + "/meminfo", "MemTotal");
    if (!total) return std::nullopt;  // unknown, not inconsistent
    nodes += *total;
  }
  const double ratio = static_cast<double>(nodes) / static_cast<double>(*system);
  if (ratio > 0.98 && ratio < 1.02) return std::nullopt;
  return "NUMA nodes account for " + std::to_string(nodes >> 20) + " MiB but /proc/meminfo " +
         "MemTotal is " + std::to_string(*system >> 20) +
         " MiB: per-node memory figures do not cover all memory (hot-plugged or ballooned "
         "memory in a VM?)";
}

std::vector<std::vector<unsigned>> read_sysfs_distances(const SysRoot& root,
                                                        const std::vector<unsigned>& node_ids) {
  std::vector<std::vector<unsigned>> matrix;
  // nodeN/distance lists distances to every *online* node in id order; map it
  // through the online list so sparse node ids line up.
  std::vector<unsigned> online = numbered_entries(root, kNodeDir, "node");
  for (unsigned id : node_ids) {
    auto text = root.read(node_path(id) + "/distance");
    if (!text) return {};
    std::istringstream in(*text);
    std::map<unsigned, unsigned> by_node;
    unsigned value = 0;
    for (std::size_t i = 0; in >> value; ++i) {
      if (i < online.size()) by_node[online[i]] = value;
    }
    std::vector<unsigned> row;
    for (unsigned other : node_ids) {
      auto it = by_node.find(other);
      if (it == by_node.end()) return {};
      row.push_back(it->second);
    }
    matrix.push_back(std::move(row));
  }
  return matrix;
}

std::vector<MemoryTier> read_memory_tiers(const SysRoot& root) {
  std::vector<MemoryTier> tiers;
  const std::string dir = "/sys/devices/virtual/memory_tiering";
  for (unsigned id : numbered_entries(root, dir, "memory_tier")) {
    auto text = root.read(dir + "/memory_tier" + std::to_string(id) + "/nodelist");
    if (!text) text = root.read(dir + "/memory_tier" + std::to_string(id) + "/nodes");
    auto nodes = text ? CpuList::parse(*text) : std::nullopt;
    if (!nodes) continue;
    tiers.push_back(MemoryTier{static_cast<int>(id), nodes->ids()});
  }
  return tiers;
}

std::vector<NodePerf> read_hmat_access(const SysRoot& root, const std::vector<unsigned>& node_ids) {
  std::vector<NodePerf> perf;
  for (unsigned target : node_ids) {
    for (unsigned access_class = 0; access_class < 2; ++access_class) {
      const std::string dir =
          node_path(target) + "/access" + std::to_string(access_class) + "/initiators";
      if (!root.exists(dir)) continue;
      NodePerf figures;
      figures.target = target;
      figures.access_class = access_class;
      figures.read_latency_ns = read_figure(root, dir + "/read_latency");
      figures.write_latency_ns = read_figure(root, dir + "/write_latency");
      figures.read_bandwidth_mbps = read_figure(root, dir + "/read_bandwidth");
      figures.write_bandwidth_mbps = read_figure(root, dir + "/write_bandwidth");
      figures.source = "hmat";
      if (!figures.read_latency_ns && !figures.read_bandwidth_mbps) continue;
      // The kernel lists the best initiators (those with equal best figures)
      // as nodeM links; each is an initiator→target pair with these figures.
      for (unsigned initiator : numbered_entries(root, dir, "node")) {
        figures.initiator = initiator;
        perf.push_back(figures);
      }
    }
  }
  return perf;
}

std::map<unsigned, DaxEvidence> read_dax_evidence(const SysRoot& root) {
  std::map<unsigned, DaxEvidence> evidence;
  const std::string dir = "/sys/bus/dax/devices";
  for (const auto& device : root.list(dir)) {
    auto target = root.read_int(dir + "/" + device + "/target_node");
    if (!target || *target < 0) continue;
    auto path = root.resolve_link(dir + "/" + device).value_or("");
    DaxEvidence found{"", device, path};
    // A dax device's parent chain names what backs it: a CXL region
    // (".../cxl_acpi.0/root0/decoder0.0/region0/dax_region0"), an NVDIMM
    // region (".../ndbus0/region1/dax1.0"), or EFI soft-reserved memory
    // ("hmem.N", HMAT-described but of unstated technology).
    if (path.find("/cxl") != std::string::npos || path.find("decoder") != std::string::npos) {
      found.technology = "cxl";
    } else if (path.find("ndbus") != std::string::npos) {
      found.technology = "pmem";
    } else if (path.find("hmem") != std::string::npos) {
      found.technology = "hmem";
    } else {
      continue;
    }
    evidence[static_cast<unsigned>(*target)] = found;
  }
  return evidence;
}

std::optional<unsigned> read_pci_numa_node(const SysRoot& root, const std::string& bdf) {
  auto value = root.read_int("/sys/bus/pci/devices/" + bdf + "/numa_node");
  if (!value || *value < 0) return std::nullopt;
  return static_cast<unsigned>(*value);
}

}  // namespace tier::detail
