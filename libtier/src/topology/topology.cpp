#include "tier/topology/topology.hpp"

#include <algorithm>
#include <set>

namespace tier {

const char* to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::dram:
      return "dram";
    case MemoryKind::hbm:
      return "hbm";
    case MemoryKind::pmem:
      return "pmem";
    case MemoryKind::cxl:
      return "cxl";
    case MemoryKind::cpuless:
      return "cpuless";
  }
  return "unknown";
}

const char* to_string(TierSource source) {
  switch (source) {
    case TierSource::config:
      return "config";
    case TierSource::kernel:
      return "kernel";
    case TierSource::hmat:
      return "hmat";
    case TierSource::slit:
      return "slit";
    case TierSource::single:
      return "single";
  }
  return "unknown";
}

const char* to_string(DeviceType type) {
  switch (type) {
    case DeviceType::gpu:
      return "gpu";
    case DeviceType::nic:
      return "nic";
    case DeviceType::nvme:
      return "nvme";
    case DeviceType::storage:
      return "storage";
    case DeviceType::cxl:
      return "cxl";
    case DeviceType::accelerator:
      return "accelerator";
    case DeviceType::other:
      return "other";
  }
  return "unknown";
}

const char* to_string(Locality locality) {
  switch (locality) {
    case Locality::self:
      return "X";
    case Locality::pix:
      return "PIX";
    case Locality::pxb:
      return "PXB";
    case Locality::phb:
      return "PHB";
    case Locality::node:
      return "NODE";
    case Locality::sys:
      return "SYS";
  }
  return "?";
}

const Node* Topology::node(unsigned id) const {
  auto it = std::find_if(data_.nodes.begin(), data_.nodes.end(),
                         [id](const Node& n) { return n.id == id; });
  return it == data_.nodes.end() ? nullptr : &*it;
}

std::optional<unsigned> Topology::distance(unsigned from_node, unsigned to_node) const {
  std::optional<std::size_t> from, to;
  for (std::size_t i = 0; i < data_.nodes.size(); ++i) {
    if (data_.nodes[i].id == from_node) from = i;
    if (data_.nodes[i].id == to_node) to = i;
  }
  if (!from || !to || data_.distances.size() != data_.nodes.size()) return std::nullopt;
  return data_.distances[*from][*to];
}

const NodePerf* Topology::perf_for(unsigned initiator, unsigned target) const {
  const NodePerf* best = nullptr;
  for (const auto& entry : data_.perf) {
    if (entry.initiator == initiator && entry.target == target &&
        (best == nullptr || entry.access_class < best->access_class)) {
      best = &entry;
    }
  }
  return best;
}

namespace {

Locality locality_between(const Device& da, const Device& db) {
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

}  // namespace

std::vector<std::vector<Locality>> device_locality_matrix(const std::vector<Device>& devices) {
  std::vector<std::vector<Locality>> matrix(devices.size());
  for (std::size_t a = 0; a < devices.size(); ++a) {
    for (std::size_t b = 0; b < devices.size(); ++b) {
      matrix[a].push_back(a == b ? Locality::self : locality_between(devices[a], devices[b]));
    }
  }
  return matrix;
}

unsigned Topology::tier_count() const {
  std::set<unsigned> tiers;
  for (const auto& n : data_.nodes) tiers.insert(n.tier);
  return static_cast<unsigned>(tiers.size());
}

}  // namespace tier
