#include "tier/topology/topology_text.hpp"

#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace tier {

namespace {

// A minimal left-aligned table: columns as wide as their widest cell.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const {
    std::vector<std::size_t> width;
    for (const auto& row : rows_) {
      width.resize(std::max(width.size(), row.size()), 0);
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : rows_) {
      std::string line;
      for (std::size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
      }
      out << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string bytes(std::uint64_t value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  if (value >= (1ULL << 30)) {
    out << static_cast<double>(value) / static_cast<double>(1ULL << 30) << " GiB";
  } else {
    out << static_cast<double>(value) / static_cast<double>(1ULL << 20) << " MiB";
  }
  return out.str();
}

template <typename T>
std::string or_dash(const std::optional<T>& value) {
  return value ? std::to_string(*value) : "-";
}

}  // namespace

void render_nodes(std::ostream& out, const Topology& topology) {
  Table table({"NODE", "CPUS", "MEMORY", "FREE", "KIND", "TIER", "SOURCE", "KERNEL-TIER"});
  for (const auto& node : topology.nodes()) {
    table.add({std::to_string(node.id), node.cpus.empty() ? "-" : node.cpus.to_string(),
               bytes(node.memory_total_bytes),
               node.memory_free_bytes ? bytes(*node.memory_free_bytes) : "-", to_string(node.kind),
               std::to_string(node.tier), to_string(node.tier_source),
               or_dash(node.kernel_memory_tier)});
  }
  table.print(out);
  out << "\nKind evidence:\n";
  for (const auto& node : topology.nodes()) {
    out << "  node" << node.id << ": " << node.kind_evidence << "\n";
  }
}

void render_distances(std::ostream& out, const Topology& topology) {
  out << "Distances (SLIT):\n";
  if (topology.distances().empty()) {
    out << "  not reported by firmware\n";
    return;
  }
  std::vector<std::string> header{"node"};
  for (const auto& node : topology.nodes()) header.push_back(std::to_string(node.id));
  Table table(header);
  for (std::size_t i = 0; i < topology.nodes().size(); ++i) {
    std::vector<std::string> row{std::to_string(topology.nodes()[i].id)};
    for (unsigned d : topology.distances()[i]) row.push_back(std::to_string(d));
    table.add(row);
  }
  table.print(out);
}

void render_perf(std::ostream& out, const Topology& topology) {
  out << "Latency / bandwidth (HMAT, initiator -> target):\n";
  if (topology.perf().empty()) {
    out << "  not reported by firmware (no HMAT); measure with `tierctl bench`\n";
    return;
  }
  Table table({"INITIATOR", "TARGET", "CLASS", "READ-LAT-NS", "WRITE-LAT-NS", "READ-BW-MB/S",
               "WRITE-BW-MB/S", "SOURCE"});
  for (const auto& p : topology.perf()) {
    table.add({std::to_string(p.initiator), std::to_string(p.target),
               "access" + std::to_string(p.access_class), or_dash(p.read_latency_ns),
               or_dash(p.write_latency_ns), or_dash(p.read_bandwidth_mbps),
               or_dash(p.write_bandwidth_mbps), p.source});
  }
  table.print(out);
}

void render_devices(std::ostream& out, const Topology& topology) {
  const auto& devices = topology.devices();
  out << "Devices:\n";
  if (devices.empty()) {
    out << "  none that matter for placement (GPU, NIC, NVMe, storage, CXL, accelerator)\n";
    return;
  }
  std::vector<std::string> header{""};
  for (std::size_t i = 0; i < devices.size(); ++i) header.push_back("D" + std::to_string(i));
  header.insert(header.end(), {"NUMA", "CPU-AFFINITY", "TYPE", "PCI", "NAME"});
  Table table(header);
  for (std::size_t a = 0; a < devices.size(); ++a) {
    std::vector<std::string> row{"D" + std::to_string(a)};
    for (std::size_t b = 0; b < devices.size(); ++b) {
      row.push_back(to_string(topology.device_locality(a, b)));
    }
    const auto& d = devices[a];
    const Node* node = d.numa_node ? topology.node(*d.numa_node) : nullptr;
    row.insert(row.end(), {d.numa_node ? std::to_string(*d.numa_node) : "-",
                           node != nullptr ? node->local_cpus.to_string() : "-", to_string(d.type),
                           d.pci, d.name});
    table.add(row);
  }
  table.print(out);
  out << "\nLegend:\n"
         "  X    = self\n"
         "  PIX  = connection traversing at most a single PCIe bridge\n"
         "  PXB  = connection traversing multiple PCIe bridges (without the host bridge)\n"
         "  PHB  = connection traversing a PCIe host bridge\n"
         "  NODE = connection between host bridges within one NUMA node\n"
         "  SYS  = connection crossing the interconnect between NUMA nodes (e.g. UPI, xGMI)\n";
}

void render_topology(std::ostream& out, const Topology& topology) {
  out << "Topology of " << topology.source().path << " (" << topology.nodes().size()
      << " NUMA nodes, " << topology.tier_count() << " tiers ranked by "
      << to_string(topology.tier_source()) << ")\n\n";
  render_nodes(out, topology);
  out << "\n";
  if (!topology.memory_tiers().empty()) {
    out << "Kernel memory tiers:";
    for (const auto& t : topology.memory_tiers()) {
      out << "  memory_tier" << t.id << "=" << CpuList(t.nodes).to_string();
    }
    out << "\n\n";
  }
  render_distances(out, topology);
  out << "\n";
  render_perf(out, topology);
  out << "\n";
  render_devices(out, topology);
  for (const auto& warning : topology.warnings()) out << "\nwarning: " << warning;
  if (!topology.warnings().empty()) out << "\n";
}

}  // namespace tier
