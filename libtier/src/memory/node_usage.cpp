// Node memory use, /proc/vmstat tiering counters, cgroup v2 memory.numa_stat.
#include "tier/memory/node_usage.hpp"
#include "posix/text_scan.hpp"

#include <algorithm>
#include <charconv>
#include <string>

namespace tier {

namespace {

using text::next_token;

using text::parse_u64;

using text::for_each_line;

std::uint64_t get(const std::map<std::string, std::uint64_t>& values, const std::string& key) {
  auto it = values.find(key);
  return it == values.end() ? 0 : it->second;
}

std::string node_dir(unsigned node) {
  return "/sys/devices/system/node/node" + std::to_string(node);
}

NodeMemory fill_node(unsigned id, std::map<std::string, std::uint64_t> meminfo) {
  NodeMemory node;
  node.node = id;
  node.total_bytes = get(meminfo, "MemTotal");
  node.free_bytes = get(meminfo, "MemFree");
  node.used_bytes =
      meminfo.count("MemUsed") != 0
          ? get(meminfo, "MemUsed")
          : (node.total_bytes > node.free_bytes ? node.total_bytes - node.free_bytes : 0);
  node.file_bytes = get(meminfo, "FilePages");
  node.anon_bytes = get(meminfo, "AnonPages");
  node.meminfo = std::move(meminfo);
  return node;
}

}  // namespace

const NodeMemory* MemorySnapshot::node(unsigned id) const {
  for (const auto& n : nodes) {
    if (n.node == id) return &n;
  }
  return nullptr;
}

std::map<std::string, std::uint64_t> parse_node_meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for_each_line(text, [&](std::string_view line) {
    std::string_view rest = line;
    if (next_token(rest) != "Node") return;
    next_token(rest);  // node number
    std::string_view key = next_token(rest);
    if (key.empty() || key.back() != ':') return;
    key.remove_suffix(1);
    auto value = parse_u64(next_token(rest));
    if (!value) return;
    out[std::string(key)] = next_token(rest) == "kB" ? *value * 1024 : *value;
  });
  return out;
}

std::map<std::string, std::uint64_t> parse_key_values(std::string_view text,
                                                      const std::vector<std::string>& prefixes) {
  std::map<std::string, std::uint64_t> out;
  for_each_line(text, [&](std::string_view line) {
    std::string_view rest = line;
    std::string_view key = next_token(rest);
    auto value = parse_u64(next_token(rest));
    if (key.empty() || !value) return;
    if (!prefixes.empty() &&
        std::none_of(prefixes.begin(), prefixes.end(),
                     [key](const std::string& prefix) { return key.starts_with(prefix); })) {
      return;
    }
    out[std::string(key)] = *value;
  });
  return out;
}

const std::vector<std::string>& tiering_vmstat_prefixes() {
  static const std::vector<std::string> prefixes{"pgpromote_", "pgdemote_", "numa_", "pgmigrate_"};
  return prefixes;
}

std::map<unsigned, std::uint64_t> parse_zoneinfo_watermark(std::string_view text,
                                                           std::string_view which) {
  std::map<unsigned, std::uint64_t> out;
  std::optional<unsigned> node;
  bool in_pagesets = false;
  for_each_line(text, [&](std::string_view line) {
    std::string_view rest = line;
    std::string_view first = next_token(rest);
    if (first == "Node") {
      std::string_view number = next_token(rest);
      if (!number.empty() && number.back() == ',') number.remove_suffix(1);
      auto id = parse_u64(number);
      node = id ? std::optional<unsigned>(static_cast<unsigned>(*id)) : std::nullopt;
      in_pagesets = false;
      return;
    }
    if (first == "pagesets") in_pagesets = true;
    // Per-zone watermark lines are "high <pages>"; per-CPU pageset lines are
    // "high:  <n>" (with a colon) and must not be counted.
    if (!node || in_pagesets || first != which) return;
    if (auto value = parse_u64(next_token(rest))) out[*node] += *value;
  });
  return out;
}

namespace {

// Both watermarks of every node from one /proc/zoneinfo read.
struct Watermarks {
  std::map<unsigned, std::uint64_t> low, high;
  void fill(NodeMemory& node) const {
    if (auto it = low.find(node.node); it != low.end())
      node.low_watermark_bytes = it->second * 4096;
    if (auto it = high.find(node.node); it != high.end()) {
      node.high_watermark_bytes = it->second * 4096;
    }
  }
};

Watermarks read_watermarks(const SysRoot& root) {
  Watermarks out;
  if (auto zoneinfo = root.read("/proc/zoneinfo")) {
    out.low = parse_zoneinfo_watermark(*zoneinfo, "low");
    out.high = parse_zoneinfo_watermark(*zoneinfo, "high");
  }
  return out;
}

}  // namespace

std::optional<NodeMemory> read_node_memory(const SysRoot& root, unsigned node) {
  auto meminfo = root.read(node_dir(node) + "/meminfo");
  if (!meminfo) return std::nullopt;
  NodeMemory out = fill_node(node, parse_node_meminfo(*meminfo));
  if (auto numastat = root.read(node_dir(node) + "/numastat")) {
    out.numastat = parse_key_values(*numastat);
  }
  read_watermarks(root).fill(out);
  return out;
}

MemorySnapshot read_memory_snapshot(const SysRoot& root) {
  MemorySnapshot snapshot;
  const Watermarks watermarks = read_watermarks(root);
  for (unsigned id : numbered_entries(root, "/sys/devices/system/node", "node")) {
    auto meminfo = root.read(node_dir(id) + "/meminfo");
    if (!meminfo) continue;
    NodeMemory node = fill_node(id, parse_node_meminfo(*meminfo));
    node.huge_pages_total = get(node.meminfo, "HugePages_Total");
    node.huge_pages_free = get(node.meminfo, "HugePages_Free");
    if (auto numastat = root.read(node_dir(id) + "/numastat")) {
      node.numastat = parse_key_values(*numastat);
    }
    if (auto vmstat = root.read(node_dir(id) + "/vmstat")) {
      node.vmstat = parse_key_values(*vmstat, tiering_vmstat_prefixes());
    }
    watermarks.fill(node);
    snapshot.nodes.push_back(std::move(node));
  }
  if (auto vmstat = root.read("/proc/vmstat")) {
    snapshot.vmstat = parse_key_values(*vmstat, tiering_vmstat_prefixes());
  }
  return snapshot;
}

std::map<std::string, double> counter_rates(const std::map<std::string, std::uint64_t>& before,
                                            const std::map<std::string, std::uint64_t>& after,
                                            double seconds) {
  std::map<std::string, double> out;
  if (!(seconds > 0)) return out;
  for (const auto& [key, value] : after) {
    auto it = before.find(key);
    if (it == before.end()) continue;
    out[key] = value >= it->second ? static_cast<double>(value - it->second) / seconds : 0.0;
  }
  return out;
}

namespace {

// The counters of pages the kernel promoted and demoted (each demotion path
// has its own).
constexpr const char* kPromoted[] = {"pgpromote_success"};
constexpr const char* kDemoted[] = {"pgdemote_kswapd", "pgdemote_direct", "pgdemote_khugepaged",
                                    "pgdemote_proactive"};

template <typename Value, std::size_t N>
Value sum_of(const std::map<std::string, Value>& counters, const char* const (&keys)[N]) {
  Value sum{};
  for (const char* key : keys) {
    if (auto it = counters.find(key); it != counters.end()) sum += it->second;
  }
  return sum;
}

}  // namespace

TieringRates tiering_rates(const std::map<std::string, double>& rates) {
  TieringRates out;
  out.promote_pages_per_s = sum_of(rates, kPromoted);
  out.demote_pages_per_s = sum_of(rates, kDemoted);
  auto migrated = rates.find("pgmigrate_success");
  out.migrate_pages_per_s = migrated == rates.end() ? 0.0 : migrated->second;
  return out;
}

TieringCounts tiering_counts(const std::map<std::string, std::uint64_t>& vmstat) {
  return {sum_of(vmstat, kPromoted), sum_of(vmstat, kDemoted)};
}

CgroupNumaStat parse_cgroup_numa_stat(std::string_view text) {
  CgroupNumaStat out;
  for_each_line(text, [&](std::string_view line) {
    std::string_view rest = line;
    std::string key(next_token(rest));
    if (key.empty()) return;
    for (std::string_view item = next_token(rest); !item.empty(); item = next_token(rest)) {
      std::size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq < 2 || item[0] != 'N') continue;
      auto node = parse_u64(item.substr(1, eq - 1));
      auto value = parse_u64(item.substr(eq + 1));
      if (node && value) out[key][static_cast<unsigned>(*node)] = *value;
    }
  });
  return out;
}

std::optional<CgroupNumaStat> read_cgroup_numa_stat(const SysRoot& root,
                                                    std::string_view cgroup_path) {
  std::string path(cgroup_path);
  if (path.empty() || path.front() != '/') path = "/" + path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::vector<std::string> candidates;
  if (path.starts_with("/sys/fs/cgroup")) {
    candidates.push_back(path);
  } else {
    for (const char* mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
      // Only a cgroup v2 hierarchy has cgroup.controllers at its root.
      if (root.exists(std::string(mount) + "/cgroup.controllers")) {
        candidates.push_back(std::string(mount) + (path == "/" ? "" : path));
      }
    }
  }
  for (const auto& dir : candidates) {
    if (auto text = root.read(dir + "/memory.numa_stat")) return parse_cgroup_numa_stat(*text);
  }
  return std::nullopt;
}

std::uint64_t default_free_floor(const NodeMemory& node) {
  return std::max(node.high_watermark_bytes, node.total_bytes / 50);
}

}  // namespace tier
