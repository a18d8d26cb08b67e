#include "tier/topology/topology_json.hpp"

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
  json::array locality;
  for (std::size_t a = 0; a < topology.devices().size(); ++a) {
    json::array row;
    for (std::size_t b = 0; b < topology.devices().size(); ++b) {
      row.push_back(json::string(to_string(topology.device_locality(a, b))));
    }
    locality.push_back(std::move(row));
  }
  out["device_locality"] = std::move(locality);
  json::array warnings;
  for (const auto& w : topology.warnings()) warnings.push_back(json::string(w));
  out["warnings"] = std::move(warnings);
  return out;
}

namespace {

// Readers that name the field they failed on, so a bad document from an
// older or newer tierd says exactly what did not match.
class Reader {
 public:
  Reader(const json::value& value, std::string path) : path_(std::move(path)) {
    object_ = value.if_object();
    if (object_ == nullptr) fail("", "an object");
  }
  const json::value& at(const char* key) const {
    const json::value* v = object_->if_contains(key);
    if (v == nullptr) fail(key, "present");
    return *v;
  }
  std::string string(const char* key) const {
    const auto& v = at(key);
    if (!v.is_string()) fail(key, "a string");
    return std::string(v.as_string());
  }
  std::uint64_t number(const char* key) const { return number_of(at(key), key); }
  template <typename T = std::uint64_t>
  std::optional<T> optional_number(const char* key) const {
    const auto& v = at(key);
    if (v.is_null()) return std::nullopt;
    return static_cast<T>(number_of(v, key));
  }
  const json::array& array(const char* key) const {
    const auto& v = at(key);
    if (!v.is_array()) fail(key, "an array");
    return v.as_array();
  }
  std::string child(const char* key, std::size_t index) const {
    return path_ + "." + key + "[" + std::to_string(index) + "]";
  }
  [[noreturn]] void fail(const std::string& key, const char* expected) const {
    throw std::invalid_argument("topology document: " + path_ + (key.empty() ? "" : "." + key) +
                                " must be " + expected);
  }

 private:
  std::uint64_t number_of(const json::value& v, const char* key) const {
    if (v.is_uint64()) return v.as_uint64();
    if (v.is_int64() && v.as_int64() >= 0) return static_cast<std::uint64_t>(v.as_int64());
    fail(key, "a non-negative integer");
  }
  const json::object* object_ = nullptr;
  std::string path_;
};

template <typename Enum, std::size_t N>
Enum parse_enum(const std::string& text, const Enum (&values)[N], const Reader& r,
                const char* key) {
  for (Enum value : values) {
    if (text == to_string(value)) return value;
  }
  r.fail(key, "a known name");
}

std::vector<unsigned> id_list(const json::array& array, const Reader& r, const char* key) {
  std::vector<unsigned> ids;
  for (const auto& v : array) {
    if (!v.is_int64() && !v.is_uint64()) r.fail(key, "an array of integers");
    ids.push_back(static_cast<unsigned>(v.to_number<std::uint64_t>()));
  }
  return ids;
}

}  // namespace

Topology topology_from_json(const json::value& document) {
  Reader top(document, "$");
  if (top.string("schema") != kTopologySchema) top.fail("schema", kTopologySchema);
  constexpr MemoryKind kinds[] = {MemoryKind::dram, MemoryKind::hbm, MemoryKind::pmem,
                                  MemoryKind::cxl, MemoryKind::cpuless};
  constexpr TierSource sources[] = {TierSource::config, TierSource::kernel, TierSource::hmat,
                                    TierSource::slit, TierSource::single};
  constexpr DeviceType types[] = {DeviceType::gpu,     DeviceType::nic, DeviceType::nvme,
                                  DeviceType::storage, DeviceType::cxl, DeviceType::accelerator,
                                  DeviceType::other};
  TopologyData data;
  Reader source(top.at("source"), "$.source");
  const std::string source_kind = source.string("kind");
  data.source.kind = source_kind == "xml"      ? TopologySource::Kind::xml
                     : source_kind == "fsroot" ? TopologySource::Kind::fsroot
                                               : TopologySource::Kind::live;
  data.source.path = source.string("path");

  const auto& nodes = top.array("nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    Reader r(nodes[i], top.child("nodes", i));
    Node node;
    node.id = static_cast<unsigned>(r.number("id"));
    node.cpus = CpuList(id_list(r.array("cpus"), r, "cpus"));
    auto local = CpuList::parse(r.string("local_cpus"));
    if (!local) r.fail("local_cpus", "a CPU list");
    node.local_cpus = *local;
    if (!r.at("allowed").is_bool()) r.fail("allowed", "a boolean");
    node.allowed = r.at("allowed").as_bool();
    node.kind = parse_enum(r.string("kind"), kinds, r, "kind");
    node.kind_evidence = r.string("kind_evidence");
    node.tier = static_cast<unsigned>(r.number("tier"));
    node.tier_source = parse_enum(r.string("tier_source"), sources, r, "tier_source");
    node.kernel_memory_tier = r.optional_number<int>("kernel_memory_tier");
    node.memory_total_bytes = r.number("memory_total_bytes");
    node.memory_free_bytes = r.optional_number("memory_free_bytes");
    data.nodes.push_back(std::move(node));
  }

  Reader distances(top.at("distances"), "$.distances");
  for (const auto& row : distances.array("matrix")) {
    if (!row.is_array()) distances.fail("matrix", "an array of arrays");
    data.distances.push_back(id_list(row.as_array(), distances, "matrix"));
  }

  const auto& perf = top.array("perf");
  for (std::size_t i = 0; i < perf.size(); ++i) {
    Reader r(perf[i], top.child("perf", i));
    NodePerf p;
    p.initiator = static_cast<unsigned>(r.number("initiator"));
    p.target = static_cast<unsigned>(r.number("target"));
    p.access_class = static_cast<unsigned>(r.number("access_class"));
    p.read_latency_ns = r.optional_number("read_latency_ns");
    p.write_latency_ns = r.optional_number("write_latency_ns");
    p.read_bandwidth_mbps = r.optional_number("read_bandwidth_mbps");
    p.write_bandwidth_mbps = r.optional_number("write_bandwidth_mbps");
    p.source = r.string("source");
    data.perf.push_back(std::move(p));
  }

  const auto& tiers = top.array("memory_tiers");
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    Reader r(tiers[i], top.child("memory_tiers", i));
    data.memory_tiers.push_back(
        MemoryTier{static_cast<int>(r.number("id")), id_list(r.array("nodes"), r, "nodes")});
  }
  data.tier_source = parse_enum(top.string("tier_source"), sources, top, "tier_source");

  const auto& devices = top.array("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    Reader r(devices[i], top.child("devices", i));
    Device d;
    d.name = r.string("name");
    d.type = parse_enum(r.string("type"), types, r, "type");
    d.pci = r.string("pci");
    d.numa_node = r.optional_number<unsigned>("numa_node");
    data.devices.push_back(std::move(d));
  }
  constexpr Locality localities[] = {Locality::self, Locality::pix,  Locality::pxb,
                                     Locality::phb,  Locality::node, Locality::sys};
  const auto& locality = top.array("device_locality");
  if (locality.size() != data.devices.size()) top.fail("device_locality", "devices × devices");
  for (const auto& row : locality) {
    if (!row.is_array() || row.as_array().size() != data.devices.size()) {
      top.fail("device_locality", "devices × devices");
    }
    std::vector<Locality> parsed;
    for (const auto& cell : row.as_array()) {
      if (!cell.is_string()) top.fail("device_locality", "an array of arrays of names");
      parsed.push_back(
          parse_enum(std::string(cell.as_string()), localities, top, "device_locality"));
    }
    data.device_locality.push_back(std::move(parsed));
  }
  for (const auto& w : top.array("warnings")) {
    if (!w.is_string()) top.fail("warnings", "an array of strings");
    data.warnings.emplace_back(w.as_string());
  }
  return Topology(std::move(data));
}

}  // namespace tier
