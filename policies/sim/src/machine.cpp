#include "tier/sim/machine.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "tier/topology/topology.hpp"

namespace tier::sim {

const MachineNode* Machine::node(unsigned id) const {
  for (const MachineNode& n : nodes) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

double Machine::latency(unsigned cpu_node, unsigned memory_node) const {
  return latency_ns.at(cpu_node).at(memory_node);
}

std::uint64_t Machine::fast_capacity_bytes() const {
  std::uint64_t bytes = 0;
  for (const MachineNode& n : nodes) {
    if (n.tier == 0) bytes += n.capacity_bytes;
  }
  return bytes;
}

std::vector<unsigned> Machine::fallback_order(unsigned from) const {
  std::vector<unsigned> order;
  for (const MachineNode& n : nodes) order.push_back(n.id);
  const bool by_distance = from < distance.size();
  const auto cost = [&](unsigned to) -> double {
    if (by_distance) return to < distance[from].size() ? distance[from][to] : 1e300;
    return from < latency_ns.size() && to < latency_ns[from].size() ? latency_ns[from][to] : 1e300;
  };
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    if ((a == from) != (b == from)) return a == from;
    const double ca = cost(a), cb = cost(b);
    return ca != cb ? ca < cb : a < b;
  });
  return order;
}

void validate(const Machine& machine) {
  if (machine.nodes.empty()) throw std::invalid_argument("machine without nodes");
  std::set<unsigned> ids;
  unsigned max_id = 0;
  for (const MachineNode& n : machine.nodes) {
    if (!ids.insert(n.id).second) {
      throw std::invalid_argument("machine node " + std::to_string(n.id) + " listed twice");
    }
    max_id = std::max(max_id, n.id);
  }
  if (machine.latency_ns.size() <= max_id) {
    throw std::invalid_argument("latency matrix has " + std::to_string(machine.latency_ns.size()) +
                                " rows, node ids go to " + std::to_string(max_id));
  }
  for (const MachineNode& cpu : machine.nodes) {
    if (!cpu.has_cpus) continue;
    const auto& row = machine.latency_ns[cpu.id];
    for (const MachineNode& mem : machine.nodes) {
      if (row.size() <= mem.id || !(row[mem.id] >= 0)) {
        throw std::invalid_argument("no latency from CPU node " + std::to_string(cpu.id) +
                                    " to node " + std::to_string(mem.id));
      }
    }
  }
}

Machine two_tier(std::uint64_t fast_bytes, std::uint64_t slow_bytes, double fast_ns,
                 double slow_ns) {
  Machine m;
  m.nodes = {{0, 0, true, fast_bytes, 0}, {1, 1, false, slow_bytes, 0}};
  m.latency_ns = {{fast_ns, slow_ns}, {slow_ns, fast_ns}};
  return m;
}

Machine machine_from_topology(const Topology& topology, const FromTopologyOptions& options) {
  if (!(options.ns_per_distance > 0)) throw std::invalid_argument("ns_per_distance must be > 0");
  Machine m;
  unsigned max_id = 0;
  for (const Node& n : topology.nodes()) {
    MachineNode node;
    node.id = n.id;
    node.tier = n.tier;
    node.has_cpus = !n.cpus.empty();
    node.capacity_bytes = n.memory_total_bytes;
    if (node.tier == 0 && options.fast_capacity_bytes) {
      node.capacity_bytes = *options.fast_capacity_bytes;
    }
    if (auto it = options.capacity_bytes.find(n.id); it != options.capacity_bytes.end()) {
      node.capacity_bytes = it->second;
    }
    m.nodes.push_back(node);
    max_id = std::max(max_id, n.id);
  }
  if (m.nodes.empty()) throw std::invalid_argument("topology without nodes");
  m.latency_ns.assign(max_id + 1, std::vector<double>(max_id + 1, 0.0));
  if (!topology.distances().empty()) {
    m.distance.assign(max_id + 1, std::vector<unsigned>(max_id + 1, 0));
    for (const MachineNode& a : m.nodes) {
      for (const MachineNode& b : m.nodes)
        m.distance[a.id][b.id] = topology.distance(a.id, b.id).value_or(255);
    }
  }
  for (const MachineNode& cpu : m.nodes) {
    if (!cpu.has_cpus) continue;
    for (const MachineNode& mem : m.nodes) {
      double ns = options.ns_per_distance * (cpu.id == mem.id ? 10 : 20);
      if (const NodePerf* perf = topology.perf_for(cpu.id, mem.id);
          perf != nullptr && perf->read_latency_ns) {
        ns = static_cast<double>(*perf->read_latency_ns);
      } else if (auto distance = topology.distance(cpu.id, mem.id)) {
        ns = options.ns_per_distance * *distance;
      }
      m.latency_ns[cpu.id][mem.id] = ns;
    }
  }
  for (const Node& n : topology.nodes()) {
    if (!n.cpus.empty()) return m;
  }
  throw std::invalid_argument("topology without a CPU node");
}

}  // namespace tier::sim
