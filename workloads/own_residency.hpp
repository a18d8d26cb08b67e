// Where a workload's own pages are: one move_pages(0, n, pages, NULL, status)
// query per 4096 pages, counted per node, shared by the ground-truth
// workloads (tier-touch, hotset) that print their placement as JSON.
#pragma once

#include <numaif.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace tier_workloads {

/// {node: pages} of [base, base + length) (4 KiB pages); a failed query
/// counts its pages under -1000 - errno.
inline std::map<int, std::size_t> own_page_nodes(char* base, std::size_t length) {
  constexpr std::size_t kPage = 4096, kChunk = 4096;
  std::map<int, std::size_t> count;
  std::vector<void*> addrs(kChunk);
  std::vector<int> status(kChunk);
  const std::size_t pages = length / kPage;
  for (std::size_t i = 0; i < pages; i += kChunk) {
    const std::size_t n = std::min(kChunk, pages - i);
    for (std::size_t k = 0; k < n; ++k) addrs[k] = base + (i + k) * kPage;
    if (move_pages(0, n, addrs.data(), nullptr, status.data(), 0) != 0) {
      count[-1000 - errno] += n;
      continue;
    }
    for (std::size_t k = 0; k < n; ++k) ++count[status[k]];
  }
  return count;
}

/// {"node": pages, ...}
inline std::string node_counts_json(const std::map<int, std::size_t>& nodes) {
  std::string out = "{";
  for (const auto& [node, n] : nodes) {
    if (out.size() > 1) out += ",";
    out += "\"" + std::to_string(node) + "\":" + std::to_string(n);
  }
  return out + "}";
}

}  // namespace tier_workloads
