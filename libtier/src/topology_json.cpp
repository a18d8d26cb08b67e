#include "tier/topology_json.hpp"

#include <boost/json.hpp>

namespace tier {

namespace json = boost::json;

namespace {

template <typename T>
json::value optional_value(const std::optional<T>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

json::array to_array(const CpuList& list) {
  json::array out;
  for (unsigned id : list.ids()) out.push_back(id);
  return out;
}

const char* source_kind(TopologySource::Kind kind) {
  switch (kind) {
    case TopologySource::Kind::live:
      return "live";
    case TopologySource::Kind::fsroot:
      return "fsroot";
    case TopologySource::Kind::xml:
      return "xml";
  }
  return "unknown";
}

}  // namespace

json::value to_json(const Topology& topology) {
  json::object out;
  out["schema"] = kTopologySchema;
  out["source"] =
      json::object{{"kind", source_kind(topology.source().kind)}, {"path", topology.source().path}};

  json::array nodes;
  for (const auto& node : topology.nodes()) {
    nodes.push_back(json::object{
        {"id", node.id},
        {"cpus", to_array(node.cpus)},
        {"cpulist", node.cpus.to_string()},
        {"local_cpus", node.local_cpus.to_string()},
        {"allowed", node.allowed},
        {"kind", to_string(node.kind)},
        {"kind_evidence", node.kind_evidence},
        {"tier", node.tier},
        {"tier_source", to_string(node.tier_source)},
        {"kernel_memory_tier", optional_value(node.kernel_memory_tier)},
        {"memory_total_bytes", node.memory_total_bytes},
        {"memory_free_bytes", optional_value(node.memory_free_bytes)},
    });
  }
  out["nodes"] = std::move(nodes);

  json::array ids, matrix;
  for (const auto& node : topology.nodes()) ids.push_back(node.id);
  for (const auto& row : topology.distances()) {
    json::array r;
    for (unsigned d : row) r.push_back(d);
    matrix.push_back(std::move(r));
  }
  out["distances"] = json::object{{"nodes", std::move(ids)}, {"matrix", std::move(matrix)}};

  json::array perf;
  for (const auto& p : topology.perf()) {
    perf.push_back(json::object{
        {"initiator", p.initiator},
        {"target", p.target},
        {"access_class", p.access_class},
        {"read_latency_ns", optional_value(p.read_latency_ns)},
        {"write_latency_ns", optional_value(p.write_latency_ns)},
        {"read_bandwidth_mbps", optional_value(p.read_bandwidth_mbps)},
        {"write_bandwidth_mbps", optional_value(p.write_bandwidth_mbps)},
        {"source", p.source},
    });
  }
  out["perf"] = std::move(perf);

  json::array tiers;
  for (const auto& tier : topology.memory_tiers()) {
    json::array tier_nodes;
    for (unsigned id : tier.nodes) tier_nodes.push_back(id);
    tiers.push_back(json::object{{"id", tier.id}, {"nodes", std::move(tier_nodes)}});
  }
  out["memory_tiers"] = std::move(tiers);
  out["tier_source"] = to_string(topology.tier_source());
  out["tier_count"] = topology.tier_count();

  json::array devices;
  for (const auto& d : topology.devices()) {
    devices.push_back(json::object{{"name", d.name},
                                   {"type", to_string(d.type)},
                                   {"pci", d.pci},
                                   {"numa_node", optional_value(d.numa_node)}});
  }
  out["devices"] = std::move(devices);
  json::array warnings;
  for (const auto& w : topology.warnings()) warnings.push_back(json::string(w));
  out["warnings"] = std::move(warnings);
  return out;
}

}  // namespace tier
