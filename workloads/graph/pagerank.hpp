// PageRank over the CSR, pull-based: each iteration every vertex sums its
// neighbours' rank / degree (the graph is undirected, so the neighbours are
// the in-links), damping 0.85, the rank of the vertices without edges spread
// over all (so the ranks keep summing to 1). A run starts from 1/V and does
// a fixed number of iterations.
//
// The workers split each iteration's vertex range into slices of about
// equal edges and meet at a std::barrier twice per iteration (after the
// contributions, after the new ranks); the barrier's completion step, run by
// one worker, sums the slices and reads the stop flag, so every worker takes
// the same decision to go on or give up. Every worker must call run() the
// same number of times.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <vector>

#include "csr.hpp"

namespace tier_workloads::graph {

inline constexpr double kDamping = 0.85;
inline constexpr double kRankTolerance = 1e-6;

class PageRank {
 public:
  /// `rank` and `contrib`: g.vertices doubles each (the caller's placed
  /// buffers), shared by the `workers` threads; `stop` read at each
  /// iteration's start.
  PageRank(const GraphView& g, double* rank, double* contrib, unsigned workers, unsigned iterations,
           const std::atomic<bool>& stop);
  PageRank(const PageRank&) = delete;
  PageRank& operator=(const PageRank&) = delete;

  /// One run, worker `w`'s part; adds its slice's edges to `progress`
  /// (relaxed) after each iteration. False when `stop` was seen at an
  /// iteration's start (the run is then given up by every worker).
  bool run(unsigned w, std::atomic<std::uint64_t>& progress);

  // After run() returned (read by the workers' owner once they are joined):
  std::uint64_t runs() const { return runs_; }     // whole runs
  std::uint64_t bad_runs() const { return bad_; }  // whole runs whose ranks failed
  double seconds() const { return seconds_; }      // wall time inside runs

  /// Sum of the ranks within kRankTolerance of 1 and none negative.
  static bool ranks_valid(const double* rank, std::uint32_t vertices);

 private:
  struct alignas(64) Slice {
    std::uint32_t lo = 0, hi = 0;
    double dangling = 0;  // this slice's rank on vertices without edges
  };
  // The barrier's completion step (noexcept, as std::barrier requires).
  struct Step {
    PageRank* pr;
    void operator()() noexcept { pr->step(); }
  };
  void step();

  GraphView g_;
  double *rank_, *contrib_;
  unsigned iterations_;
  const std::atomic<bool>& stop_;
  std::vector<Slice> slices_;
  std::barrier<Step> barrier_;
  // Written only in step() (one thread, between the barrier's phases).
  unsigned phase_ = 0;  // counts steps within a run
  bool go_on_ = true;
  double dangling_ = 0, started_ = 0;
  std::uint64_t runs_ = 0, bad_ = 0;
  double seconds_ = 0;
};

}  // namespace tier_workloads::graph
