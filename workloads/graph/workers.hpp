// tier-graph's measured part: --threads workers over the shared read-only
// CSR, each pinned to its --cpus entry, running the --kernel:
//   bfs       each worker traverses from its own roots one after another
//             (independent traversals: no sharing but the graph), validating
//             every whole traversal (bfs.hpp)
//   pagerank  the workers together run PageRank after PageRank, each doing
//             its slice of every iteration (pagerank.hpp)
//   mixed     rounds of one BFS per worker, then one PageRank run together
// The per-worker BFS arrays and the shared rank arrays are PlacedBuffers on
// --node / --policy like the CSR, allocated by the constructor (before the
// ready line). Workers publish the edges they do as relaxed atomics for the
// interval lines and stop at the next level / iteration once `stop` is set.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "bfs.hpp"
#include "csr.hpp"
#include "options.hpp"
#include "pagerank.hpp"

namespace tier_workloads::graph {

class Workers {
 public:
  /// Throws std::runtime_error when a buffer cannot be placed,
  /// std::invalid_argument when BFS runs on a graph without edges.
  Workers(const GraphView& g, const GraphOptions& o, const std::atomic<bool>& stop);
  ~Workers();
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  /// Bytes of the workers' own arrays (BFS parent/level/queue, ranks).
  std::uint64_t bytes() const;
  void start();
  /// Edges done so far by all workers, all kernels.
  std::uint64_t edges() const;

  struct Totals {
    std::uint64_t bfs_edges = 0, pr_edges = 0;
    std::uint64_t traversals = 0, pr_runs = 0;
    std::uint64_t bad = 0;  // failed BFS validations + failed PageRank runs
    double bfs_teps = 0;    // summed over workers: edges / time inside bfs()
    double pr_eps = 0;      // edges / wall time inside PageRank runs
  };
  /// Waits for the workers (after `stop` was set).
  Totals join();

  /// Worst-case bytes of the arrays for these options on `vertices`
  /// vertices (for the node-size check before anything is built).
  static std::uint64_t bytes_for(const GraphOptions& o, std::uint64_t vertices);

 private:
  struct alignas(64) Worker {
    std::atomic<std::uint64_t> bfs_progress{0}, pr_progress{0};
    // The worker's own; read by join() after the thread ended.
    std::uint64_t traversals = 0, bad = 0;
    double bfs_seconds = 0;
    std::unique_ptr<PlacedBuffer> bfs_arrays;  // parent, level, queue
    BfsArrays arrays() const;
  };
  void body(unsigned w);
  void one_bfs(unsigned w, RootSequence& roots);

  GraphView g_;
  const GraphOptions& o_;
  const std::atomic<bool>& stop_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<PlacedBuffer> rank_, contrib_;
  std::unique_ptr<PageRank> pagerank_;
  std::vector<std::thread> threads_;
};

}  // namespace tier_workloads::graph
