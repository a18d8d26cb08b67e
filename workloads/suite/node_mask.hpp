// A one-node mask for mbind(2)/set_mempolicy(2), shared by the suite's
// placement and hotset's: 1024 bits, the kernel's MAX_NUMNODES on the
// Debian kernels we run, so every node id the machine can have fits.
#pragma once

#include <cstddef>
#include <vector>

namespace tier_workloads {

inline constexpr std::size_t kNodeMaskBits = 1024;

/// The mask with only `node` set (0 <= node < kNodeMaskBits).
inline std::vector<unsigned long> node_mask(int node) {
  constexpr std::size_t kLongBits = 8 * sizeof(unsigned long);
  std::vector<unsigned long> m(kNodeMaskBits / kLongBits, 0);
  const auto n = static_cast<std::size_t>(node);
  m[n / kLongBits] |= 1ul << (n % kLongBits);
  return m;
}

}  // namespace tier_workloads
