// See preload_stats.hpp.
#include "preload_stats.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

namespace tierctl {

namespace {

// Offsets of preload/tp_stats_layout.h (checked by _Static_assert in preload/stats.c).
constexpr std::size_t kHeaderSize = 104;
constexpr std::size_t kNodeSize = 32;
constexpr std::size_t kPolicyOffset = 24, kPolicySize = 64;
constexpr std::size_t kFallbacksOffset = 88, kUnplacedOffset = 96;
constexpr std::uint32_t kVersion = 1;
constexpr unsigned kMaxNodes = 1024;

template <typename T>
T load(std::string_view bytes, std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

}  // namespace

std::optional<std::pair<std::uint64_t, std::uint64_t>> find_preload_mapping(std::string_view maps) {
  std::istringstream in{std::string(maps)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("/memfd:tier-preload") == std::string::npos) continue;
    std::uint64_t start = 0, end = 0;
    char dash = 0;
    std::istringstream fields(line);
    if (fields >> std::hex >> start >> dash >> end && dash == '-' && end > start) {
      return std::make_pair(start, end - start);
    }
  }
  return std::nullopt;
}

std::optional<PreloadStats> parse_preload_stats(std::string_view bytes) {
  if (bytes.size() < kHeaderSize || bytes.substr(0, 8) != "TIERPRE1" ||
      load<std::uint32_t>(bytes, 8) != kVersion) {
    return std::nullopt;
  }
  const auto nr_nodes = load<std::uint32_t>(bytes, 12);
  if (nr_nodes > kMaxNodes || bytes.size() < kHeaderSize + nr_nodes * kNodeSize)
    return std::nullopt;
  PreloadStats stats;
  const std::string_view policy = bytes.substr(kPolicyOffset, kPolicySize);
  stats.policy = std::string(policy.substr(0, policy.find('\0')));
  stats.fallbacks = load<std::uint64_t>(bytes, kFallbacksOffset);
  stats.unplaced_bytes = load<std::uint64_t>(bytes, kUnplacedOffset);
  for (unsigned n = 0; n < nr_nodes; ++n) {
    const std::size_t at = kHeaderSize + n * kNodeSize;
    PreloadNodeStats node{n, load<std::uint64_t>(bytes, at), load<std::uint64_t>(bytes, at + 8),
                          load<std::uint64_t>(bytes, at + 16), load<std::uint64_t>(bytes, at + 24)};
    if (node.allocations != 0) stats.nodes.push_back(node);
  }
  return stats;
}

std::optional<PreloadStats> read_preload_stats(const tier::SysRoot& root, int pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  const auto maps = root.read(proc + "/maps");
  if (!maps) return std::nullopt;
  const auto mapping = find_preload_mapping(*maps);
  if (!mapping) return std::nullopt;
  std::ifstream mem(root.path(proc + "/mem"), std::ios::binary);
  std::string bytes(mapping->second, '\0');
  mem.seekg(static_cast<std::streamoff>(mapping->first));
  if (!mem.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) return std::nullopt;
  return parse_preload_stats(bytes);
}

void report_preload_stats(const tier::SysRoot& root, int pid, boost::json::object* doc,
                          std::ostream& out) {
  const auto stats = read_preload_stats(root, pid);
  if (!stats) return;
  if (doc != nullptr) {
    boost::json::array nodes;
    for (const auto& n : stats->nodes) {
      nodes.push_back({{"node", n.node},
                       {"bytes", n.bytes},
                       {"count", n.count},
                       {"allocations", n.allocations},
                       {"allocated_bytes", n.allocated_bytes}});
    }
    (*doc)["preload"] = {{"policy", stats->policy},
                         {"fallbacks", stats->fallbacks},
                         {"unplaced_bytes", stats->unplaced_bytes},
                         {"nodes", std::move(nodes)}};
    return;
  }
  out << "  libtierpreload (policy " << stats->policy << "): placed now\n";
  for (const auto& n : stats->nodes) {
    out << "    node " << n.node << ": " << n.bytes / 1048576.0 << " MiB in " << n.count
        << " allocation(s) (" << n.allocations << " since start)\n";
  }
  if (stats->unplaced_bytes != 0 || stats->fallbacks != 0) {
    out << "    unbound (bind failed): " << stats->unplaced_bytes / 1048576.0 << " MiB, "
        << stats->fallbacks << " fallback(s)\n";
  }
}

}  // namespace tierctl
