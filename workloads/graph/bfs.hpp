// Breadth-first search over the CSR, Graph500's kernel 2: top-down and
// level-synchronous from one root, into a worker's own parent and level
// arrays (and a queue holding each level's frontier after the previous
// one's), then Graph500's validation of the result.
//
// Counted: the edges examined, i.e. the directed CSR entries scanned, the
// degrees of every vertex taken off the frontier. After a whole traversal
// that is every entry in the root's component: 2 x its edges that are not
// self-loops (Graph500 counts the input edges of the component, self-loops
// and duplicates included, once each, so about half of this).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "csr.hpp"

namespace tier_workloads::graph {

inline constexpr std::uint32_t kNone = UINT32_MAX;  // not reached

/// A worker's arrays, `vertices` entries each.
struct BfsArrays {
  std::uint32_t* parent;
  std::uint32_t* level;
  std::uint32_t* queue;
};

struct BfsResult {
  std::uint64_t edges = 0;  // entries scanned, also when stopped
  bool complete = false;    // false: `stop` came first; the arrays are partial
};

/// One traversal from `root`. Every level (and every 16384 frontier
/// vertices within one) it adds the entries scanned since to `progress`
/// (relaxed) and gives up when `stop` is set.
BfsResult bfs(const GraphView& g, std::uint32_t root, const BfsArrays& a,
              const std::atomic<bool>& stop, std::atomic<std::uint64_t>& progress);

/// Graph500's rules for a BFS result: the root is its own parent at level 0;
/// a vertex has a parent exactly when it has a level; every tree edge
/// (parent[v], v) is a graph edge and level[v] = level[parent[v]] + 1; every
/// graph edge (u, v) joins two reached vertices whose levels differ by at
/// most 1, or two unreached ones (a reached vertex's neighbours are all
/// reached). One pass over the CSR. Empty when valid, else the first broken
/// rule.
std::string validate_bfs(const GraphView& g, std::uint32_t root, const std::uint32_t* parent,
                         const std::uint32_t* level);

/// A worker's roots, drawn from the seed among the vertices of degree > 0
/// (the graph must have an edge).
class RootSequence {
 public:
  RootSequence(const GraphView& g, std::uint64_t seed, unsigned worker);
  std::uint32_t next();

 private:
  GraphView g_;
  std::uint64_t seed_, worker_, drawn_ = 0;
};

}  // namespace tier_workloads::graph
