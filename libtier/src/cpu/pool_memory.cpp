// Memory nodes for a pool's CPUs (see pool_memory.hpp).
#include "pool_memory.hpp"

#include <algorithm>
#include <climits>

namespace tier::cpu::detail {

MemoryAlignment::MemoryAlignment(const CpuInventory& inventory, const Topology& topology)
    : inventory_(inventory) {
  for (const Node& node : topology.nodes()) {
    if (!node.cpus.empty() || !inventory.cpus_of_node(node.id).empty()) continue;
    CpulessNode entry;
    entry.id = node.id;
    entry.tier = node.tier;
    if (!node.local_cpus.empty()) {
      entry.local.assign(node.local_cpus.ids().back() + 1, false);
      for (unsigned cpu : node.local_cpus.ids()) entry.local[cpu] = true;
    } else {
      unsigned best = UINT_MAX;
      for (unsigned cpu_node : inventory.nodes()) {
        auto d = topology.distance(node.id, cpu_node);
        if (!d) continue;
        if (*d < best) entry.nearest_cpu_nodes.clear();
        if (*d <= best) {
          best = *d;
          entry.nearest_cpu_nodes.push_back(cpu_node);
        }
      }
    }
    cpuless_.push_back(std::move(entry));
  }
  std::sort(cpuless_.begin(), cpuless_.end(), [](const CpulessNode& a, const CpulessNode& b) {
    return a.tier != b.tier ? a.tier < b.tier : a.id < b.id;
  });
}

std::vector<unsigned> MemoryAlignment::nodes_for(const CpuList& cpus, WorkloadClass cls) const {
  std::vector<unsigned> cpu_nodes;
  for (unsigned cpu : cpus.ids()) {
    if (auto node = inventory_.node_of(cpu)) cpu_nodes.push_back(*node);
  }
  std::sort(cpu_nodes.begin(), cpu_nodes.end());
  cpu_nodes.erase(std::unique(cpu_nodes.begin(), cpu_nodes.end()), cpu_nodes.end());

  std::vector<const CpulessNode*> near;  // attached CPU-less nodes, by (tier, id)
  for (const CpulessNode& node : cpuless_) {
    bool attached;
    if (!node.local.empty()) {
      attached = std::any_of(cpus.ids().begin(), cpus.ids().end(), [&](unsigned cpu) {
        return cpu < node.local.size() && node.local[cpu];
      });
    } else if (!node.nearest_cpu_nodes.empty()) {
      attached = std::any_of(cpu_nodes.begin(), cpu_nodes.end(), [&](unsigned n) {
        return std::find(node.nearest_cpu_nodes.begin(), node.nearest_cpu_nodes.end(), n) !=
               node.nearest_cpu_nodes.end();
      });
    } else {
      attached = true;
    }
    if (attached) near.push_back(&node);
  }
  std::vector<unsigned> out;
  if (cls == WorkloadClass::offline) {
    // Slowest tier first: batch work leaves the fast tier to others.
    std::stable_sort(near.begin(), near.end(),
                     [](const CpulessNode* a, const CpulessNode* b) { return a->tier > b->tier; });
    for (const CpulessNode* node : near) out.push_back(node->id);
    out.insert(out.end(), cpu_nodes.begin(), cpu_nodes.end());
  } else {
    out = cpu_nodes;
    for (const CpulessNode* node : near) out.push_back(node->id);
  }
  return out;
}

}  // namespace tier::cpu::detail
