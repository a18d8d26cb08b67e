// CPU inventory: the container (see cpu_inventory.hpp).
#include "tier/cpu/cpu_inventory.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tier::cpu {

CpuInventory::CpuInventory(std::vector<LogicalCpu> cpus) : cpus_(std::move(cpus)) {
  std::sort(cpus_.begin(), cpus_.end(),
            [](const LogicalCpu& a, const LogicalCpu& b) { return a.id < b.id; });
  index_of_id_.assign(id_limit(), -1);
  std::vector<std::vector<unsigned>> cores;
  std::vector<unsigned> ids, nodes;
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    const LogicalCpu& c = cpus_[i];
    if (index_of_id_[c.id] >= 0) {
      throw std::invalid_argument("CPU " + std::to_string(c.id) + " appears twice");
    }
    index_of_id_[c.id] = static_cast<int>(i);
    ids.push_back(c.id);
    if (c.core >= cores.size()) cores.resize(c.core + 1);
    cores[c.core].push_back(c.id);
    if (c.node) nodes.push_back(*c.node);
  }
  for (std::size_t core = 0; core < cores.size(); ++core) {
    if (cores[core].empty()) {
      throw std::invalid_argument("core indices must be dense: core " + std::to_string(core) +
                                  " has no CPU");
    }
    smt_width_ = std::max(smt_width_, static_cast<unsigned>(cores[core].size()));
    cores_.emplace_back(std::move(cores[core]));
  }
  all_ = CpuList(std::move(ids));
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  nodes_ = std::move(nodes);
}

const LogicalCpu* CpuInventory::cpu(unsigned id) const {
  if (id >= index_of_id_.size() || index_of_id_[id] < 0) return nullptr;
  return &cpus_[static_cast<std::size_t>(index_of_id_[id])];
}

CpuList CpuInventory::cpus_of_node(unsigned n) const {
  std::vector<unsigned> ids;
  for (const auto& c : cpus_) {
    if (c.node == n) ids.push_back(c.id);
  }
  return CpuList(std::move(ids));
}

std::optional<unsigned> CpuInventory::node_of(unsigned id) const {
  const LogicalCpu* c = cpu(id);
  return c != nullptr ? c->node : std::nullopt;
}

}  // namespace tier::cpu
