// The graph as the workers read it: an undirected CSR (compressed sparse
// rows), each generated edge {u, v} stored in both directions, self-loops
// dropped, duplicate edges kept (a vertex may list a neighbour twice, as the
// Kronecker generator draws some edges more than once). Its two arrays are
// the data tiering moves, each in a PlacedBuffer on --node / --policy:
//   offsets    uint64 x (vertices + 1): v's neighbours are
//              adjacency[offsets[v] .. offsets[v + 1])
//   adjacency  uint32 x entries (the directed entries, 2 x the edges that
//              are not self-loops)
// Building uses one temporary ordinary array (vertices + 1 counters), freed
// before the constructor returns.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "kronecker.hpp"
#include "placement.hpp"

namespace tier_workloads::graph {

/// A PlacedBuffer's first touch for arrays written afterwards (the CSR's,
/// the workers'): zeros.
void zero_fill(char* p, std::size_t n);

/// A read-only look at a CSR (the kernels take this, so the tests can hand
/// them small arrays of their own).
struct GraphView {
  std::uint32_t vertices = 0;
  std::uint64_t entries = 0;
  const std::uint64_t* offsets = nullptr;
  const std::uint32_t* adjacency = nullptr;
  std::uint64_t degree(std::uint32_t v) const { return offsets[v + 1] - offsets[v]; }
};

class Csr {
 public:
  /// Throws std::invalid_argument when an edge names a vertex >= `vertices`,
  /// std::runtime_error when a buffer cannot be placed.
  Csr(const std::vector<Edge>& edges, std::uint32_t vertices, int node, Placement policy);

  GraphView view() const;
  /// The bytes of the two arrays (what the checksum covers).
  std::uint64_t bytes() const;
  /// checksum.hpp over offsets, then adjacency.
  std::uint64_t checksum() const;
  /// {node: pages} of the two buffers together.
  std::map<int, std::size_t> nodes() const;
  /// The adjacency's bytes, writable (a test flips one).
  char* adjacency_bytes() { return adjacency_->data(); }

 private:
  std::uint32_t vertices_;
  std::uint64_t entries_ = 0;
  std::unique_ptr<PlacedBuffer> offsets_, adjacency_;
};

/// The exit check: `verified` bytes recomputed, `bad` 1 when the checksum
/// is not `expected`.
struct CsrCheck {
  std::uint64_t verified = 0, bad = 0;
};
CsrCheck check_csr(const Csr& csr, std::uint64_t expected);

}  // namespace tier_workloads::graph
