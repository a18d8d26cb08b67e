#include "tier/topology.hpp"

#include <algorithm>
#include <set>

namespace tier {

const char* to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::dram: return "dram";
    case MemoryKind::hbm: return "hbm";
    case MemoryKind::pmem: return "pmem";
    case MemoryKind::cxl: return "cxl";
    case MemoryKind::cpuless: return "cpuless";
  }
  return "unknown";
}

const char* to_string(TierSource source) {
  switch (source) {
    case TierSource::config: return "config";
    case TierSource::kernel: return "kernel";
    case TierSource::hmat: return "hmat";
    case TierSource::slit: return "slit";
    case TierSource::single: return "single";
  }
  return "unknown";
}

const char* to_string(DeviceType type) {
  switch (type) {
    case DeviceType::gpu: return "gpu";
    case DeviceType::nic: return "nic";
    case DeviceType::nvme: return "nvme";
    case DeviceType::storage: return "storage";
    case DeviceType::cxl: return "cxl";
    case DeviceType::accelerator: return "accelerator";
    case DeviceType::other: return "other";
  }
  return "unknown";
}

const char* to_string(Locality locality) {
  switch (locality) {
    case Locality::self: return "X";
    case Locality::pix: return "PIX";
    case Locality::pxb: return "PXB";
    case Locality::phb: return "PHB";
    case Locality::node: return "NODE";
    case Locality::sys: return "SYS";
  }
  return "?";
}

Topology::Topology(std::vector<Node> nodes, std::vector<std::vector<unsigned>> distances,
                   std::vector<NodePerf> perf, std::vector<MemoryTier> memory_tiers,
                   std::vector<Device> devices, TierSource tier_source, TopologySource source)
    : nodes_(std::move(nodes)),
      distances_(std::move(distances)),
      perf_(std::move(perf)),
      memory_tiers_(std::move(memory_tiers)),
      devices_(std::move(devices)),
      tier_source_(tier_source),
      source_(std::move(source)) {}

const Node* Topology::node(unsigned id) const {
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [id](const Node& n) { return n.id == id; });
  return it == nodes_.end() ? nullptr : &*it;
}

std::optional<unsigned> Topology::distance(unsigned from_node, unsigned to_node) const {
  std::optional<std::size_t> from, to;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].id == from_node) from = i;
    if (nodes_[i].id == to_node) to = i;
  }
  if (!from || !to || distances_.size() != nodes_.size()) return std::nullopt;
  return distances_[*from][*to];
}

const NodePerf* Topology::perf_for(unsigned initiator, unsigned target) const {
  const NodePerf* best = nullptr;
  for (const auto& entry : perf_) {
    if (entry.initiator == initiator && entry.target == target &&
        (best == nullptr || entry.access_class < best->access_class)) {
      best = &entry;
    }
  }
  return best;
}

Locality Topology::device_locality(std::size_t a, std::size_t b) const {
  if (a == b) return Locality::self;
  const Device& da = devices_.at(a);
  const Device& db = devices_.at(b);
  const auto& pa = da.bridge_path;
  const auto& pb = db.bridge_path;
  // Path element 0 is the host bridge; different host bridges means the
  // traffic crosses the CPU's interconnect: within a node (NODE) or not (SYS).
  if (pa.empty() || pb.empty() || pa.front() != pb.front()) {
    return da.numa_node && da.numa_node == db.numa_node ? Locality::node : Locality::sys;
  }
  std::size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common]) ++common;
  if (common == 1) return Locality::phb;  // only the host bridge is shared
  // Below the lowest shared PCI bridge: none more on either side is a single
  // bridge (PIX); any further bridge makes it several (PXB).
  return pa.size() == common && pb.size() == common ? Locality::pix : Locality::pxb;
}

unsigned Topology::tier_count() const {
  std::set<unsigned> tiers;
  for (const auto& n : nodes_) tiers.insert(n.tier);
  return static_cast<unsigned>(tiers.size());
}

}  // namespace tier
