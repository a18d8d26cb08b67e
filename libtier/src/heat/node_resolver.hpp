// NodeResolver: the memory node of sampled pages, asked from the kernel.
//
// Fault, DAMON and soft-dirty samples carry a virtual address only; the
// cross-NUMA matrix and per-node heat need the node the page is on. One
// batched move_pages(pid, n, pages, NULL, status) query per poll answers all
// distinct pages of that poll (capped, so a flood of samples costs a bounded
// query; the rest stay unresolved and are counted).
#pragma once

#include <cstdint>
#include <vector>

#include "tier/heat/sample.hpp"
#include "tier/memory/memory_syscalls.hpp"

namespace tier::heat {

class NodeResolver {
 public:
  NodeResolver(MemorySyscalls& syscalls, std::size_t max_pages_per_call = 65536)
      : syscalls_(syscalls), max_pages_(max_pages_per_call) {}

  /// Fills `node` of samples that have none (node < 0) and belong to `pid`.
  /// Region samples are resolved by their first page. Returns how many such
  /// samples stay unresolved (not resident, over the cap, process gone).
  std::uint64_t resolve(int pid, std::vector<AccessSample>& samples);

  /// Node of each 4 KiB page at `addresses` (status of move_pages: node, or
  /// a negative errno for pages not present); empty when the query failed.
  std::vector<int> query(int pid, const std::vector<std::uint64_t>& addresses);

 private:
  MemorySyscalls& syscalls_;
  std::size_t max_pages_;
};

}  // namespace tier::heat
