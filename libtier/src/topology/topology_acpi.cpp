// The full HMAT matrix from the raw ACPI tables (see topology_sources.hpp).
#include <map>
#include <set>

#include "tier/topology/acpi_hmat.hpp"
#include "topology/topology_sources.hpp"

namespace tier::detail {

namespace {

using Pair = std::pair<unsigned, unsigned>;  // initiator node, target node

std::map<Pair, NodePerf> figures_by_pair(const std::vector<acpi::HmatFigure>& figures,
                                         const std::map<std::uint32_t, unsigned>& node_of) {
  std::map<Pair, NodePerf> pairs;
  for (const auto& f : figures) {
    auto initiator = node_of.find(f.initiator_pxm);
    auto target = node_of.find(f.target_pxm);
    if (initiator == node_of.end() || target == node_of.end()) continue;
    NodePerf& p = pairs[{initiator->second, target->second}];
    p.initiator = initiator->second;
    p.target = target->second;
    p.source = "hmat";
    switch (f.type) {
      case acpi::HmatDataType::access_latency:
        p.read_latency_ns = p.write_latency_ns = f.value;
        break;
      case acpi::HmatDataType::read_latency:
        p.read_latency_ns = f.value;
        break;
      case acpi::HmatDataType::write_latency:
        p.write_latency_ns = f.value;
        break;
      case acpi::HmatDataType::access_bandwidth:
        p.read_bandwidth_mbps = p.write_bandwidth_mbps = f.value;
        break;
      case acpi::HmatDataType::read_bandwidth:
        p.read_bandwidth_mbps = f.value;
        break;
      case acpi::HmatDataType::write_bandwidth:
        p.write_bandwidth_mbps = f.value;
        break;
    }
  }
  return pairs;
}

bool agrees(const NodePerf& table, const NodePerf& sysfs) {
  auto same = [](const auto& a, const auto& b) { return !b || a == b; };
  return same(table.read_latency_ns, sysfs.read_latency_ns) &&
         same(table.write_latency_ns, sysfs.write_latency_ns) &&
         same(table.read_bandwidth_mbps, sysfs.read_bandwidth_mbps) &&
         same(table.write_bandwidth_mbps, sysfs.write_bandwidth_mbps);
}

}  // namespace

std::vector<NodePerf> read_acpi_hmat_extra_pairs(const SysRoot& root,
                                                 const std::vector<NodePerf>& sysfs_perf) {
  auto hmat_bytes = root.read_bytes("/sys/firmware/acpi/tables/HMAT");
  auto srat_bytes = root.read_bytes("/sys/firmware/acpi/tables/SRAT");
  if (!hmat_bytes || !srat_bytes || sysfs_perf.empty()) return {};
  auto figures = acpi::parse_hmat(*hmat_bytes);
  auto node_of = acpi::parse_srat_node_map(*srat_bytes);
  if (!figures || !node_of) return {};
  auto pairs = figures_by_pair(*figures, *node_of);

  std::set<Pair> shown;
  for (const auto& p : sysfs_perf) {
    auto it = pairs.find({p.initiator, p.target});
    if (it == pairs.end() || !agrees(it->second, p)) return {};  // mapping not trustworthy
    shown.insert({p.initiator, p.target});
  }
  std::vector<NodePerf> extra;
  for (const auto& [pair, perf] : pairs) {
    if (!shown.contains(pair)) extra.push_back(perf);
  }
  return extra;
}

}  // namespace tier::detail
