// Placing hotset's buffer: split it into regions (the cold part on --node,
// the first hot set evenly over --hot-nodes), give each region its memory
// policy and first-touch it with the page pattern, so every page exists on
// its node before the ready line. Also the residency query (move_pages
// without targets: the kernel's own answer to "which node is this page on").
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "../own_residency.hpp"
#include "options.hpp"

namespace hotset {

struct Region {
  std::size_t offset = 0;  // bytes from the buffer's start
  std::size_t length = 0;
  int node = 0;
};

// The regions of o's layout, in address order, covering the whole buffer.
std::vector<Region> plan_regions(const Options& o);

// Applies o.policy to each region and fills it. Returns how the policy was
// set ("mbind", or "set_mempolicy" when mbind rejected MPOL_F_NUMA_BALANCING);
// on failure prints why and returns an empty string.
std::string place_and_fill(char* base, const Options& o, const std::vector<Region>& regions);

// One step of a growing buffer (--grow-mbps): gives [p, p + length) o.policy
// on o.node and fills it. first-touch uses MPOL_PREFERRED for the touch (a
// full node spills over to the next one instead of the OOM killer), then
// MPOL_DEFAULT. False (with a message) on failure.
bool place_chunk(char* p, std::size_t length, const Options& o);

// {node: pages} of [base, base + length), and that map as JSON.
inline std::map<int, std::size_t> residency(char* base, std::size_t length) {
  return tier_workloads::own_page_nodes(base, length);
}
inline std::string residency_json(const std::map<int, std::size_t>& nodes) {
  return tier_workloads::node_counts_json(nodes);
}

}  // namespace hotset
