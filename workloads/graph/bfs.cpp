#include "bfs.hpp"

#include <algorithm>
#include <stdexcept>

#include "random.hpp"

namespace tier_workloads::graph {
namespace {

constexpr std::uint64_t kPollVertices = 16384;
constexpr int kRejections = 64;

std::string rule(const std::string& what, std::uint32_t v) {
  return what + " (vertex " + std::to_string(v) + ")";
}

}  // namespace

BfsResult bfs(const GraphView& g, std::uint32_t root, const BfsArrays& a,
              const std::atomic<bool>& stop, std::atomic<std::uint64_t>& progress) {
  std::fill(a.parent, a.parent + g.vertices, kNone);
  std::fill(a.level, a.level + g.vertices, kNone);
  a.parent[root] = root;
  a.level[root] = 0;
  a.queue[0] = root;
  std::uint64_t head = 0, tail = 1, unpublished = 0;
  BfsResult r;
  // Publishes the entries scanned since the last call; true when to stop.
  auto poll = [&] {
    progress.fetch_add(unpublished, std::memory_order_relaxed);
    r.edges += unpublished;
    unpublished = 0;
    return stop.load(std::memory_order_relaxed);
  };
  for (std::uint32_t depth = 0; head < tail; ++depth) {
    if (poll()) return r;
    const std::uint64_t end = tail;  // this level's frontier: queue[head, end)
    for (; head < end; ++head) {
      if ((head + 1) % kPollVertices == 0 && poll()) return r;
      const std::uint32_t u = a.queue[head];
      const std::uint64_t lo = g.offsets[u], hi = g.offsets[u + 1];
      for (std::uint64_t k = lo; k < hi; ++k) {
        const std::uint32_t v = g.adjacency[k];
        if (a.parent[v] != kNone) continue;
        a.parent[v] = u;
        a.level[v] = depth + 1;
        a.queue[tail++] = v;
      }
      unpublished += hi - lo;
    }
  }
  poll();  // a stop now is too late to matter: the traversal is whole
  r.complete = true;
  return r;
}

std::string validate_bfs(const GraphView& g, std::uint32_t root, const std::uint32_t* parent,
                         const std::uint32_t* level) {
  if (root >= g.vertices) return rule("the root is not a vertex", root);
  if (parent[root] != root) return rule("the root is not its own parent", root);
  if (level[root] != 0) return rule("the root is not at level 0", root);
  for (std::uint32_t v = 0; v < g.vertices; ++v) {
    const bool reached = level[v] != kNone;
    if ((parent[v] != kNone) != reached)
      return rule("a parent without a level, or a level without a parent", v);
    if (!reached) {
      // Its neighbours are checked from their side: an edge to a reached
      // vertex fails there.
      continue;
    }
    if (parent[v] >= g.vertices) return rule("a parent that is not a vertex", v);
    if (v != root && (level[parent[v]] == kNone || level[parent[v]] + 1 != level[v])) {
      return rule("level is not the parent's level + 1", v);
    }
    bool tree_edge = v == root;
    for (std::uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
      const std::uint32_t u = g.adjacency[k];
      if (level[u] == kNone) return rule("a reached vertex with an unreached neighbour", v);
      const std::uint32_t diff = level[u] > level[v] ? level[u] - level[v] : level[v] - level[u];
      if (diff > 1) return rule("an edge between levels more than 1 apart", v);
      tree_edge = tree_edge || u == parent[v];
    }
    if (!tree_edge) return rule("the tree edge to the parent is not a graph edge", v);
  }
  return "";
}

RootSequence::RootSequence(const GraphView& g, std::uint64_t seed, unsigned worker)
    : g_(g), seed_(seed), worker_(worker) {
  if (g.entries == 0) throw std::invalid_argument("the graph has no edges: no BFS root");
}

std::uint32_t RootSequence::next() {
  // Stream per draw (not one per worker) so a root depends only on the
  // seed, the worker and how many roots it took before.
  Stream rng(seed_, kRootDomain, (worker_ << 40) + drawn_++);
  // Uniform among the vertices with an edge by rejection; a graph with
  // almost none (a tiny test graph) steps to the next one after that.
  auto v = static_cast<std::uint32_t>(rng.below(g_.vertices));
  for (int tries = 1; g_.degree(v) == 0 && tries < kRejections; ++tries) {
    v = static_cast<std::uint32_t>(rng.below(g_.vertices));
  }
  while (g_.degree(v) == 0) v = v + 1 == g_.vertices ? 0 : v + 1;
  return v;
}

}  // namespace tier_workloads::graph
