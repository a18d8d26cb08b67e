// Per-node residency totals from /proc/PID/numa_maps (residency_totals.hpp).
#include "tier/memory/residency_totals.hpp"

#include <string>

#include "tier/memory/residency.hpp"

namespace tier {

std::map<unsigned, std::uint64_t> numa_maps_bytes_by_node(std::string_view numa_maps) {
  std::map<unsigned, std::uint64_t> out;
  for (const auto& [start, entry] : parse_numa_maps(numa_maps)) {
    for (const auto& [node, pages] : entry.pages) out[node] += pages * entry.page_size;
  }
  return out;
}

std::optional<std::map<unsigned, std::uint64_t>> resident_bytes_by_node(const SysRoot& root,
                                                                        int pid) {
  // An empty file is a process without user memory (a kernel thread): no
  // bytes, not an error. A missing one is a process that is gone.
  std::optional<std::string> text = root.read("/proc/" + std::to_string(pid) + "/numa_maps");
  if (!text) return std::nullopt;
  return numa_maps_bytes_by_node(*text);
}

}  // namespace tier
