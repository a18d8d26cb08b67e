#include "workers.hpp"

#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "run_control.hpp"

namespace tier_workloads::graph {
namespace {

bool runs_bfs(Kernel k) {
  return k != Kernel::pagerank;
}
bool runs_pagerank(Kernel k) {
  return k != Kernel::bfs;
}

constexpr std::uint64_t kBfsArrayBytes = 3 * sizeof(std::uint32_t);  // per vertex
constexpr std::uint64_t kRankArrayBytes = 2 * sizeof(double);        // per vertex
constexpr int kReportedFailures = 3;                                 // per worker, on stderr

}  // namespace

std::uint64_t Workers::bytes_for(const GraphOptions& o, std::uint64_t vertices) {
  std::uint64_t n = 0;
  if (runs_bfs(o.kernel)) n += std::uint64_t{o.suite.threads} * vertices * kBfsArrayBytes;
  if (runs_pagerank(o.kernel)) n += vertices * kRankArrayBytes;
  return n;
}

Workers::Workers(const GraphView& g, const GraphOptions& o, const std::atomic<bool>& stop)
    : g_(g), o_(o), stop_(stop) {
  if (runs_bfs(o.kernel) && g.entries == 0) {
    throw std::invalid_argument("the graph has no edges: no BFS root to start from");
  }
  for (unsigned w = 0; w < o.suite.threads; ++w) {
    auto& me = workers_.emplace_back(std::make_unique<Worker>());
    if (runs_bfs(o.kernel)) {
      me->bfs_arrays = std::make_unique<PlacedBuffer>(g.vertices * kBfsArrayBytes, o.suite.node,
                                                      o.suite.policy, zero_fill);
    }
  }
  if (runs_pagerank(o.kernel)) {
    const std::size_t n = std::size_t{g.vertices} * sizeof(double);
    rank_ = std::make_unique<PlacedBuffer>(n, o.suite.node, o.suite.policy, zero_fill);
    contrib_ = std::make_unique<PlacedBuffer>(n, o.suite.node, o.suite.policy, zero_fill);
    pagerank_ = std::make_unique<PageRank>(g, reinterpret_cast<double*>(rank_->data()),
                                           reinterpret_cast<double*>(contrib_->data()),
                                           o.suite.threads, o.pr_iterations, stop);
  }
}

Workers::~Workers() {
  // Only on an exception between start() and join(): the workers must not
  // outlive what they read.
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

BfsArrays Workers::Worker::arrays() const {
  auto* base = reinterpret_cast<std::uint32_t*>(bfs_arrays->data());
  const std::size_t n = bfs_arrays->size() / kBfsArrayBytes;  // >= vertices
  return {base, base + n, base + 2 * n};
}

std::uint64_t Workers::bytes() const {
  std::uint64_t n = 0;
  for (const auto& w : workers_) n += w->bfs_arrays ? w->bfs_arrays->size() : 0;
  if (rank_) n += rank_->size() + contrib_->size();
  return n;
}

void Workers::start() {
  for (unsigned w = 0; w < workers_.size(); ++w) threads_.emplace_back(&Workers::body, this, w);
}

std::uint64_t Workers::edges() const {
  std::uint64_t n = 0;
  for (const auto& w : workers_) {
    n += w->bfs_progress.load(std::memory_order_relaxed) +
         w->pr_progress.load(std::memory_order_relaxed);
  }
  return n;
}

void Workers::one_bfs(unsigned w, RootSequence& roots) {
  Worker& me = *workers_[w];
  const BfsArrays a = me.arrays();
  const std::uint32_t root = roots.next();
  const double t0 = monotonic_s();
  const BfsResult r = bfs(g_, root, a, stop_, me.bfs_progress);
  me.bfs_seconds += monotonic_s() - t0;
  if (!r.complete) return;  // stopped: a partial tree is nothing to validate
  ++me.traversals;
  const std::string why = validate_bfs(g_, root, a.parent, a.level);
  if (why.empty()) return;
  if (++me.bad <= kReportedFailures) {
    std::fprintf(stderr, "tier-graph: worker %u: the BFS from root %u failed validation: %s\n", w,
                 root, why.c_str());
  }
}

void Workers::body(unsigned w) {
  if (!pin_thread(o_.suite.cpus, w)) {
    std::fprintf(stderr, "tier-graph: worker %u: cannot pin to CPU %u: %s (running unpinned)\n", w,
                 o_.suite.cpus.ids()[w % o_.suite.cpus.size()], std::strerror(errno));
  }
  std::optional<RootSequence> roots;
  if (runs_bfs(o_.kernel)) roots.emplace(g_, o_.suite.seed, w);
  for (;;) {
    // In mixed mode a worker that sees the stop still joins the PageRank
    // run, which then ends at once for all (they decide together).
    if (runs_bfs(o_.kernel)) {
      if (stop_.load(std::memory_order_relaxed)) {
        if (!runs_pagerank(o_.kernel)) break;
      } else {
        one_bfs(w, *roots);
      }
    }
    if (runs_pagerank(o_.kernel) && !pagerank_->run(w, workers_[w]->pr_progress)) break;
  }
}

Workers::Totals Workers::join() {
  for (auto& t : threads_) t.join();
  threads_.clear();
  Totals t;
  for (const auto& w : workers_) {
    const std::uint64_t edges = w->bfs_progress.load();
    t.bfs_edges += edges;
    t.pr_edges += w->pr_progress.load();
    t.traversals += w->traversals;
    t.bad += w->bad;
    if (w->bfs_seconds > 0) t.bfs_teps += static_cast<double>(edges) / w->bfs_seconds;
  }
  if (pagerank_) {
    t.pr_runs = pagerank_->runs();
    t.bad += pagerank_->bad_runs();
    if (pagerank_->seconds() > 0) t.pr_eps = static_cast<double>(t.pr_edges) / pagerank_->seconds();
  }
  return t;
}

}  // namespace tier_workloads::graph
