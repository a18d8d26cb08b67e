#include "placement.hpp"

#include <numaif.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "../suite/node_mask.hpp"
#include "pattern.hpp"

namespace hotset {
namespace {

constexpr std::size_t kMaskBits = tier_workloads::kNodeMaskBits;
using tier_workloads::node_mask;

void fill(char* p, std::size_t length) {
  for (std::size_t off = 0; off < length; off += kPage) {
    fill_words(reinterpret_cast<std::uint64_t*>(p + off), kPageWords);
  }
}

bool fail(const char* what, int node) {
  std::fprintf(stderr, "hotset: %s (node %d): %s\n", what, node, std::strerror(errno));
  return false;
}

bool bind(char* p, std::size_t length, int node) {
  auto mask = node_mask(node);
  return mbind(p, length, MPOL_BIND, mask.data(), kMaskBits, 0) == 0 ||
         fail("mbind(MPOL_BIND)", node);
}

// MPOL_BIND with MPOL_F_NUMA_BALANCING through mbind (a VMA policy); if the
// kernel refuses the flag there, through the task policy around the first
// touch (the pages are placed, but the VMA then has no policy of its own).
bool place_balancing(char* p, const Region& r, std::string& method) {
  auto mask = node_mask(r.node);
  if (mbind(p, r.length, MPOL_BIND | MPOL_F_NUMA_BALANCING, mask.data(), kMaskBits, 0) == 0) {
    fill(p, r.length);
    return true;
  }
  if (errno != EINVAL) return fail("mbind(MPOL_BIND|MPOL_F_NUMA_BALANCING)", r.node);
  method = "set_mempolicy";
  if (set_mempolicy(MPOL_BIND | MPOL_F_NUMA_BALANCING, mask.data(), kMaskBits) != 0) {
    return fail("set_mempolicy(MPOL_BIND|MPOL_F_NUMA_BALANCING)", r.node);
  }
  fill(p, r.length);
  if (set_mempolicy(MPOL_DEFAULT, nullptr, 0) != 0) return fail("set_mempolicy(MPOL_DEFAULT)", -1);
  return true;
}

}  // namespace

std::vector<Region> plan_regions(const Options& o) {
  std::vector<Region> out;
  auto add = [&out](std::size_t off, std::size_t len, int node) {
    if (len > 0) out.push_back({off, len, node});
  };
  if (o.hot_nodes.empty()) {
    add(0, o.size, o.node);
    return out;
  }
  add(0, o.hot_offset, o.node);
  // Whole pages per node; the first (pages % n) nodes get one page more.
  std::size_t pages = o.hot / kPage, n = o.hot_nodes.size(), off = o.hot_offset;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t len = (pages / n + (i < pages % n ? 1 : 0)) * kPage;
    add(off, len, o.hot_nodes[i]);
    off += len;
  }
  add(off, o.size - off, o.node);
  return out;
}

std::string place_and_fill(char* base, const Options& o, const std::vector<Region>& regions) {
  std::string method = "mbind";
  for (const Region& r : regions) {
    char* p = base + r.offset;
    switch (o.policy) {
      case Policy::kBind:
        if (!bind(p, r.length, r.node)) return "";
        fill(p, r.length);
        break;
      case Policy::kBindBalancing:
        if (!place_balancing(p, r, method)) return "";
        break;
      case Policy::kFirstTouch:
        // No MPOL_MF_MOVE on the way back: dropping the policy moves nothing.
        if (!bind(p, r.length, r.node)) return "";
        fill(p, r.length);
        if (mbind(p, r.length, MPOL_DEFAULT, nullptr, 0, 0) != 0) {
          fail("mbind(MPOL_DEFAULT)", r.node);
          return "";
        }
        break;
    }
  }
  return method;
}

bool place_chunk(char* p, std::size_t length, const Options& o) {
  Region r{0, length, o.node};
  std::string method;
  switch (o.policy) {
    case Policy::kBind:
      if (!bind(p, length, o.node)) return false;
      break;
    case Policy::kBindBalancing:
      return place_balancing(p, r, method);
    case Policy::kFirstTouch: {
      auto mask = node_mask(o.node);
      if (mbind(p, length, MPOL_PREFERRED, mask.data(), kMaskBits, 0) != 0) {
        return fail("mbind(MPOL_PREFERRED)", o.node);
      }
      fill(p, length);
      if (mbind(p, length, MPOL_DEFAULT, nullptr, 0, 0) != 0) {
        return fail("mbind(MPOL_DEFAULT)", o.node);
      }
      return true;
    }
  }
  fill(p, length);
  return true;
}

}  // namespace hotset
