// The Graph500 Kronecker (R-MAT) edge list (Graph500 specification 3.0,
// section 3 "Graph Generation"; its reference kronecker_generator.m):
// 2^scale vertices, edge_factor x 2^scale edges, each edge's endpoints
// chosen one bit per level with the initiator A = 0.57, B = 0.19, C = 0.19,
// D = 0.05 (four levels drawn at once from their joint distribution: the
// reference's distribution with fewer random numbers), then the vertex
// labels randomly permuted so a vertex's degree says nothing about its
// number. Self-loops and duplicate edges are kept here, as the
// specification's generator keeps them (the CSR drops the self-loops). The
// edge order is the generator's, not shuffled: the CSR does not depend on it.
//
// Deterministic from the seed, whatever `threads` is: edge i draws from its
// own stream (random.hpp), the permutation from one stream.
#pragma once

#include <cstdint>
#include <vector>

namespace tier_workloads::graph {

struct Edge {
  std::uint32_t u, v;
  friend bool operator==(const Edge&, const Edge&) = default;
};

inline constexpr double kInitiatorA = 0.57, kInitiatorB = 0.19, kInitiatorC = 0.19;

/// The permutation of [0, 2^scale) that relabels the vertices (Fisher-Yates).
std::vector<std::uint32_t> vertex_permutation(unsigned scale, std::uint64_t seed);

/// Edges first .. first + count - 1 before the relabelling: each row and
/// column bit is one level's choice (for the tests of the distribution).
std::vector<Edge> kronecker_unpermuted(unsigned scale, std::uint64_t seed, std::uint64_t first,
                                       std::uint64_t count);

/// edge_factor x 2^scale edges, labels permuted; `threads` (>= 1) generate
/// ranges of edges at once. scale <= 31.
std::vector<Edge> kronecker_edges(unsigned scale, unsigned edge_factor, std::uint64_t seed,
                                  unsigned threads);

}  // namespace tier_workloads::graph
