#include "pagerank.hpp"

#include <algorithm>
#include <cmath>

#include "run_control.hpp"

namespace tier_workloads::graph {

PageRank::PageRank(const GraphView& g, double* rank, double* contrib, unsigned workers,
                   unsigned iterations, const std::atomic<bool>& stop)
    : g_(g),
      rank_(rank),
      contrib_(contrib),
      iterations_(iterations),
      stop_(stop),
      slices_(workers),
      barrier_(static_cast<std::ptrdiff_t>(workers), Step{this}) {
  // Slice w starts at the first vertex whose list starts at or after w/W of
  // the entries: about equal edges each (Kronecker degrees are very uneven).
  for (unsigned w = 1; w < workers; ++w) {
    const std::uint64_t target = g.entries * w / workers;
    const auto* at = std::lower_bound(g.offsets, g.offsets + g.vertices, target);
    slices_[w].lo = slices_[w - 1].hi = static_cast<std::uint32_t>(at - g.offsets);
  }
  slices_.back().hi = g.vertices;
}

// A run's steps, one per barrier: 0 at its start (the clock, the stop flag);
// then per iteration i: 2i + 1 after the contributions (their dangling
// rank), 2i + 2 after the new ranks (the stop flag for the next iteration;
// after the last one, the check of the ranks).
void PageRank::step() {
  if (phase_ == 0) started_ = monotonic_s();
  if (phase_ % 2 == 0 && phase_ < 2 * iterations_) {
    go_on_ = !stop_.load(std::memory_order_relaxed);
  }
  if (phase_ % 2 == 1) {
    dangling_ = 0;
    for (const Slice& s : slices_) dangling_ += s.dangling;
  }
  const bool last = phase_ == 2 * iterations_;
  if (last) {
    ++runs_;
    if (!ranks_valid(rank_, g_.vertices)) ++bad_;
  }
  if (last || !go_on_) {
    seconds_ += monotonic_s() - started_;
    phase_ = 0;
  } else {
    ++phase_;
  }
}

bool PageRank::run(unsigned w, std::atomic<std::uint64_t>& progress) {
  Slice& s = slices_[w];
  const double vertices = g_.vertices;
  barrier_.arrive_and_wait();
  if (!go_on_) return false;
  for (unsigned it = 0; it < iterations_; ++it) {
    s.dangling = 0;
    for (std::uint32_t u = s.lo; u < s.hi; ++u) {
      const double r = it == 0 ? (rank_[u] = 1.0 / vertices) : rank_[u];
      const std::uint64_t d = g_.degree(u);
      if (d == 0) {
        s.dangling += r;
      } else {
        contrib_[u] = r / static_cast<double>(d);
      }
    }
    barrier_.arrive_and_wait();
    if (!go_on_) return false;
    const double base = (1.0 - kDamping + kDamping * dangling_) / vertices;
    for (std::uint32_t v = s.lo; v < s.hi; ++v) {
      double sum = 0;
      for (std::uint64_t k = g_.offsets[v]; k < g_.offsets[v + 1]; ++k) {
        sum += contrib_[g_.adjacency[k]];
      }
      rank_[v] = base + kDamping * sum;
    }
    progress.fetch_add(g_.offsets[s.hi] - g_.offsets[s.lo], std::memory_order_relaxed);
    barrier_.arrive_and_wait();
    if (!go_on_) return false;
  }
  return true;
}

bool PageRank::ranks_valid(const double* rank, std::uint32_t vertices) {
  double sum = 0;
  for (std::uint32_t v = 0; v < vertices; ++v) {
    if (!(rank[v] >= 0)) return false;  // also NaN
    sum += rank[v];
  }
  return std::fabs(sum - 1.0) <= kRankTolerance;
}

}  // namespace tier_workloads::graph
