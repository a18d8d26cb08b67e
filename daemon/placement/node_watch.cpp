#include "placement/node_watch.hpp"

#include <cstdlib>

namespace tierd {

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::string mib(std::uint64_t bytes) {
  return std::to_string(bytes / kMiB) + " MiB";
}

std::string was(const std::map<unsigned, std::uint64_t>& before, unsigned node) {
  auto found = before.find(node);
  return found == before.end() || found->second == 0 ? "none" : mib(found->second);
}

}  // namespace

std::uint64_t memory_block_bytes(const tier::SysRoot& root) {
  constexpr std::uint64_t kDefault = 128 * kMiB;
  const std::optional<std::string> text = root.read("/sys/devices/system/memory/block_size_bytes");
  if (!text) return kDefault;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text->c_str(), &end, 16);
  return end != text->c_str() && *end == '\0' && value > 0 ? value : kDefault;
}

void NodeWatch::reset(const tier::MemorySnapshot& memory, std::uint64_t block_bytes) {
  total_bytes_.clear();
  for (const tier::NodeMemory& node : memory.nodes) total_bytes_[node.node] = node.total_bytes;
  block_bytes_ = block_bytes;
}

std::vector<std::string> NodeWatch::changes(const tier::MemorySnapshot& memory) const {
  std::map<unsigned, std::uint64_t> now;
  for (const tier::NodeMemory& node : memory.nodes) now[node.node] = node.total_bytes;
  std::map<unsigned, std::string> lines;  // by node: one line each, in id order
  for (const auto& [node, before] : total_bytes_) {
    auto found = now.find(node);
    if (found == now.end()) {
      lines[node] = "node " + std::to_string(node) + ": gone (was " + was(total_bytes_, node) + ")";
      continue;
    }
    const std::uint64_t after = found->second;
    const std::uint64_t delta = after > before ? after - before : before - after;
    // Less than a block is not hotplug; to or from nothing always is.
    if (delta == 0 || (delta < block_bytes_ && before != 0 && after != 0)) continue;
    lines[node] = "node " + std::to_string(node) + ": " + (after == 0 ? "no memory" : mib(after)) +
                  " (was " + was(total_bytes_, node) + ")";
  }
  for (const auto& [node, after] : now) {
    if (total_bytes_.contains(node) || after == 0) continue;
    lines[node] = "node " + std::to_string(node) + ": " + mib(after) + " (was none)";
  }
  std::vector<std::string> out;
  for (auto& [node, line] : lines) out.push_back(std::move(line));
  return out;
}

std::vector<tier::policy::NodeState> placeable_nodes(const tier::MemorySnapshot& memory,
                                                     const tier::Topology& topology) {
  std::vector<tier::policy::NodeState> nodes;
  for (const tier::NodeMemory& node : memory.nodes) {
    const tier::Node* known = topology.node(node.node);
    if (known == nullptr || node.total_bytes == 0) continue;
    nodes.push_back({node.node, known->tier, !known->cpus.empty(), node.total_bytes,
                     node.free_bytes, node.high_watermark_bytes});
  }
  return nodes;
}

}  // namespace tierd
