// tier-graph's parts (workloads/graph/): the Kronecker generator, the CSR,
// BFS and its Graph500 validation, PageRank, the CSR checksum that proves
// the graph survived its page moves, the option errors, and the workers
// over a small graph in every kernel.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph/bfs.hpp"
#include "graph/checksum.hpp"
#include "graph/csr.hpp"
#include "graph/kronecker.hpp"
#include "graph/options.hpp"
#include "graph/pagerank.hpp"
#include "graph/workers.hpp"
#include "tier/values/values.hpp"

namespace {

using ::testing::HasSubstr;
using namespace tier_workloads::graph;
using tier_workloads::Placement;

Csr unplaced(const std::vector<Edge>& edges, std::uint32_t vertices) {
  return Csr(edges, vertices, -1, Placement::first_touch);
}

// 0-1, 0-2, 1-3, 2-3, 3-4 (a component with a diamond), 5-6 (another), 7
// alone, and a self-loop on 4 the CSR drops.
const std::vector<Edge> kSmall = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {5, 6}, {4, 4}};

struct Traversal {
  std::vector<std::uint32_t> parent, level, queue;
  explicit Traversal(std::uint32_t n) : parent(n), level(n), queue(n) {}
  BfsArrays arrays() { return {parent.data(), level.data(), queue.data()}; }
};

// ---- generator -------------------------------------------------------------

TEST(GraphKronecker, DeterministicFromTheSeedWhateverTheThreads) {
  const auto one = kronecker_edges(10, 4, 7, 1);
  EXPECT_EQ(one, kronecker_edges(10, 4, 7, 3));
  EXPECT_NE(one, kronecker_edges(10, 4, 8, 1));
}

TEST(GraphKronecker, EdgeFactorTimesVerticesEdgesWithinRange) {
  const auto edges = kronecker_edges(9, 5, 1, 2);
  ASSERT_EQ(edges.size(), 5u * 512u);
  for (const Edge& e : edges) {
    EXPECT_LT(e.u, 512u);
    EXPECT_LT(e.v, 512u);
  }
}

// Every level's (row bit, column bit) falls in the initiator's quadrants
// A, B, C, D as often as they say: the levels drawn four at a time and the
// remainder levels (scale 9: one, scale 10: two) alike.
TEST(GraphKronecker, EveryLevelFollowsTheInitiator) {
  const double want[4] = {kInitiatorA, kInitiatorB, kInitiatorC,
                          1 - kInitiatorA - kInitiatorB - kInitiatorC};
  for (unsigned scale : {8u, 9u, 10u}) {
    const auto edges = kronecker_unpermuted(scale, 11, 0, 200000);
    for (unsigned level = 0; level < scale; ++level) {
      double count[4] = {0, 0, 0, 0};
      for (const Edge& e : edges) ++count[((e.u >> level) & 1) * 2 + ((e.v >> level) & 1)];
      for (int q = 0; q < 4; ++q) {
        EXPECT_NEAR(count[q] / static_cast<double>(edges.size()), want[q], 0.005)
            << "scale " << scale << " level " << level << " quadrant " << q;
      }
    }
  }
}

TEST(GraphKronecker, LabelsArePermutedAndDegreesSkewed) {
  const auto perm = vertex_permutation(12, 3);
  EXPECT_EQ(std::set<std::uint32_t>(perm.begin(), perm.end()).size(), 4096u);
  EXPECT_NE(perm, vertex_permutation(12, 4));
  // R-MAT's skew: the busiest vertex has far more than the mean degree (32),
  // and it is not vertex 0 (the unpermuted generator's hub).
  const Csr csr = unplaced(kronecker_edges(12, 16, 3, 1), 4096);
  const GraphView g = csr.view();
  std::uint32_t hub = 0;
  for (std::uint32_t v = 1; v < g.vertices; ++v) {
    if (g.degree(v) > g.degree(hub)) hub = v;
  }
  EXPECT_GT(g.degree(hub), 10u * 32u);
  EXPECT_NE(hub, 0u);
}

// ---- CSR -------------------------------------------------------------------

TEST(GraphCsr, DegreesSumToTheDirectedEntries) {
  const auto edges = kronecker_edges(10, 8, 5, 1);
  const std::uint64_t loops =
      std::count_if(edges.begin(), edges.end(), [](const Edge& e) { return e.u == e.v; });
  const Csr csr = unplaced(edges, 1024);
  const GraphView g = csr.view();
  EXPECT_EQ(g.entries, 2 * (edges.size() - loops));
  std::uint64_t sum = 0;
  for (std::uint32_t v = 0; v < g.vertices; ++v) sum += g.degree(v);
  EXPECT_EQ(sum, g.entries);
  EXPECT_EQ(g.offsets[0], 0u);
  EXPECT_EQ(csr.bytes(), 1025u * 8 + g.entries * 4);
}

TEST(GraphCsr, BothDirectionsNoSelfLoopsDuplicatesKept) {
  const Csr csr = unplaced({{0, 1}, {0, 1}, {2, 2}, {1, 2}}, 3);
  const GraphView g = csr.view();
  EXPECT_EQ(g.entries, 6u);
  EXPECT_EQ(g.degree(0), 2u);  // 1 twice
  EXPECT_EQ(g.degree(1), 3u);  // 0, 0, 2
  EXPECT_EQ(g.degree(2), 1u);  // 1; its self-loop dropped
  std::multiset<std::uint32_t> of1(g.adjacency + g.offsets[1], g.adjacency + g.offsets[2]);
  EXPECT_EQ(of1, (std::multiset<std::uint32_t>{0, 0, 2}));
}

TEST(GraphCsr, RefusesAVertexBeyondTheCount) {
  EXPECT_THROW(unplaced({{0, 3}}, 3), std::invalid_argument);
}

// ---- BFS -------------------------------------------------------------------

TEST(GraphBfs, KnownLevelsOnASmallGraphAndValid) {
  const Csr csr = unplaced(kSmall, 8);
  const GraphView g = csr.view();
  Traversal t(8);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> progress{0};
  const BfsResult r = bfs(g, 0, t.arrays(), stop, progress);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.edges, 10u);  // the component's 5 edges, both directions
  EXPECT_EQ(progress.load(), 10u);
  EXPECT_EQ(t.level, (std::vector<std::uint32_t>{0, 1, 1, 2, 3, kNone, kNone, kNone}));
  EXPECT_EQ(t.parent[0], 0u);
  EXPECT_EQ(t.parent[1], 0u);
  EXPECT_EQ(t.parent[2], 0u);
  EXPECT_EQ(t.parent[3], 1u);  // 1 is taken off the frontier before 2
  EXPECT_EQ(t.parent[4], 3u);
  EXPECT_EQ(validate_bfs(g, 0, t.parent.data(), t.level.data()), "");

  const BfsResult other = bfs(g, 6, t.arrays(), stop, progress);
  EXPECT_EQ(other.edges, 2u);
  EXPECT_EQ(t.level, (std::vector<std::uint32_t>{kNone, kNone, kNone, kNone, kNone, 1, 0, kNone}));
  EXPECT_EQ(validate_bfs(g, 6, t.parent.data(), t.level.data()), "");
}

TEST(GraphBfs, TamperedResultsFailValidation) {
  const Csr csr = unplaced(kSmall, 8);
  const GraphView g = csr.view();
  Traversal good(8);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> progress{0};
  bfs(g, 0, good.arrays(), stop, progress);

  struct Case {
    const char* rule;
    std::function<void(Traversal&)> tamper;
  };
  const std::vector<Case> cases = {
      {"tree edge",
       [](Traversal& t) {
         t.parent[4] = 2;
         t.level[4] = 2;
       }},                                                       // 2-4: no edge
      {"parent's level", [](Traversal& t) { t.level[4] = 2; }},  // 3's level, not 3's + 1
      {"not its own parent", [](Traversal& t) { t.parent[0] = 1; }},
      {"unreached neighbour",
       [](Traversal& t) {
         t.parent[4] = kNone;
         t.level[4] = kNone;
       }},
      {"parent without a level", [](Traversal& t) { t.parent[7] = 7; }},  // 7 alone
      {"more than 1 apart",
       [](Traversal& t) {
         t.level[4] = 5;
         t.level[3] = 4;
       }},
  };
  for (const auto& c : cases) {
    Traversal t = good;
    c.tamper(t);
    EXPECT_THAT(validate_bfs(g, 0, t.parent.data(), t.level.data()), HasSubstr(c.rule)) << c.rule;
  }
}

TEST(GraphBfs, StopsWhenAsked) {
  const Csr csr = unplaced(kSmall, 8);
  Traversal t(8);
  std::atomic<bool> stop{true};
  std::atomic<std::uint64_t> progress{0};
  EXPECT_FALSE(bfs(csr.view(), 0, t.arrays(), stop, progress).complete);
}

TEST(GraphBfs, ValidOnAKroneckerGraphFromManyRoots) {
  const Csr csr = unplaced(kronecker_edges(11, 16, 9, 1), 2048);
  const GraphView g = csr.view();
  Traversal t(g.vertices);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> progress{0};
  RootSequence roots(g, 9, 0), same(g, 9, 0), other(g, 9, 1);
  bool differ = false;
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t root = roots.next();
    EXPECT_EQ(root, same.next());
    differ = differ || root != other.next();
    EXPECT_GT(g.degree(root), 0u);
    ASSERT_TRUE(bfs(g, root, t.arrays(), stop, progress).complete);
    EXPECT_EQ(validate_bfs(g, root, t.parent.data(), t.level.data()), "") << root;
  }
  EXPECT_TRUE(differ);  // each worker its own roots
}

// ---- PageRank --------------------------------------------------------------

// `workers` threads run `runs` PageRank runs on `csr`; the ranks after.
std::vector<double> pagerank_of(const Csr& csr, unsigned workers, unsigned iterations,
                                unsigned runs = 1) {
  const GraphView g = csr.view();
  std::vector<double> rank(g.vertices), contrib(g.vertices);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> progress{0};
  PageRank pr(g, rank.data(), contrib.data(), workers, iterations, stop);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      for (unsigned r = 0; r < runs; ++r) EXPECT_TRUE(pr.run(w, progress));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(pr.runs(), runs);
  EXPECT_EQ(pr.bad_runs(), 0u);
  EXPECT_EQ(progress.load(), std::uint64_t{runs} * iterations * g.entries);
  return rank;
}

TEST(GraphPageRank, ACycleRanksEveryVertexOneOverV) {
  std::vector<Edge> cycle;
  for (std::uint32_t v = 0; v < 16; ++v) cycle.push_back({v, (v + 1) % 16});
  const Csr csr = unplaced(cycle, 16);
  for (unsigned workers : {1u, 3u}) {
    for (double r : pagerank_of(csr, workers, 10)) EXPECT_NEAR(r, 1.0 / 16, 1e-15);
  }
}

// The textbook iteration, written plainly, on a graph with a hub, a
// duplicate edge and vertices without edges (whose rank is spread).
TEST(GraphPageRank, MatchesThePlainIterationWithDanglingVertices) {
  const std::vector<Edge> edges = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 2}, {4, 5}};
  const std::uint32_t n = 8;  // 6 and 7 have no edges
  const Csr csr = unplaced(edges, n);
  const GraphView g = csr.view();
  std::vector<double> want(n, 1.0 / n);
  for (int it = 0; it < 7; ++it) {
    double dangling = 0;
    for (std::uint32_t u = 0; u < n; ++u) dangling += g.degree(u) == 0 ? want[u] : 0;
    std::vector<double> next(n, (1 - kDamping) / n + kDamping * dangling / n);
    for (std::uint32_t v = 0; v < n; ++v) {
      for (std::uint64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
        const std::uint32_t u = g.adjacency[k];
        next[v] += kDamping * want[u] / static_cast<double>(g.degree(u));
      }
    }
    want = next;
  }
  for (unsigned workers : {1u, 2u, 4u}) {
    const std::vector<double> got = pagerank_of(csr, workers, 7, 2);
    for (std::uint32_t v = 0; v < n; ++v) EXPECT_NEAR(got[v], want[v], 1e-12) << v;
    EXPECT_GT(got[0], got[3]);  // the hub
  }
}

TEST(GraphPageRank, RanksMustSumToOneAndBeNonNegative) {
  std::vector<double> r(4, 0.25);
  EXPECT_TRUE(PageRank::ranks_valid(r.data(), 4));
  r[0] += 2e-6;
  EXPECT_FALSE(PageRank::ranks_valid(r.data(), 4));
  r = {0.5, 0.5, -0.25, 0.25};
  EXPECT_FALSE(PageRank::ranks_valid(r.data(), 4));
  r = {0.5, 0.5, NAN, 0};
  EXPECT_FALSE(PageRank::ranks_valid(r.data(), 4));
}

TEST(GraphPageRank, AStopEndsTheRunForEveryWorker) {
  const Csr csr = unplaced(kronecker_edges(8, 4, 1, 1), 256);
  const GraphView g = csr.view();
  std::vector<double> rank(g.vertices), contrib(g.vertices);
  std::atomic<bool> stop{true};
  std::atomic<std::uint64_t> progress{0};
  PageRank pr(g, rank.data(), contrib.data(), 2, 5, stop);
  std::thread other([&] { EXPECT_FALSE(pr.run(1, progress)); });
  EXPECT_FALSE(pr.run(0, progress));
  other.join();
  EXPECT_EQ(pr.runs(), 0u);
  EXPECT_EQ(progress.load(), 0u);
}

// ---- checksum ----------------------------------------------------------------

TEST(GraphChecksum, EveryFlippedBitChangesIt) {
  std::vector<unsigned char> data(67);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 37);
  const std::uint64_t sum = checksum_bytes(data.data(), data.size());
  EXPECT_EQ(sum, checksum_bytes(data.data(), data.size()));
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      data[i] ^= static_cast<unsigned char>(1 << bit);
      EXPECT_NE(checksum_bytes(data.data(), data.size()), sum) << i << ":" << bit;
      data[i] ^= static_cast<unsigned char>(1 << bit);
    }
  }
  EXPECT_NE(checksum_bytes(data.data(), data.size() - 1), sum);
}

TEST(GraphChecksum, CatchesAFlippedAdjacencyByte) {
  Csr csr = unplaced(kronecker_edges(9, 8, 2, 1), 512);
  const std::uint64_t built = csr.checksum();
  CsrCheck ok = check_csr(csr, built);
  EXPECT_EQ(ok.verified, csr.bytes());
  EXPECT_EQ(ok.bad, 0u);
  const std::size_t at = csr.view().entries * 4 / 2 + 1;
  csr.adjacency_bytes()[at] ^= 0x10;
  EXPECT_EQ(check_csr(csr, built).bad, 1u);
  csr.adjacency_bytes()[at] ^= 0x10;
  EXPECT_EQ(check_csr(csr, built).bad, 0u);
}

// ---- options -----------------------------------------------------------------

GraphOptions parse(std::vector<std::string_view> args) {
  return parse_graph_options(args);
}

void expect_value_error(std::vector<std::string_view> args, const std::string& flag,
                        const std::string& why) {
  try {
    parse(args);
    ADD_FAILURE() << "no error for " << flag;
  } catch (const tier::values::ValueError& e) {
    EXPECT_EQ(e.name(), flag);
    EXPECT_THAT(e.what(), HasSubstr(flag));
    EXPECT_THAT(e.why(), HasSubstr(why));
  }
}

TEST(GraphOptions, DefaultsAndValues) {
  const GraphOptions d = parse({});
  EXPECT_EQ(d.scale, 18u);
  EXPECT_EQ(d.edge_factor, 16u);
  EXPECT_EQ(d.kernel, Kernel::bfs);
  EXPECT_EQ(d.pr_iterations, 10u);
  const GraphOptions o = parse({"--scale", "12", "--edge-factor", "4", "--kernel", "mixed",
                                "--pr-iterations", "3", "--threads", "2", "--seed", "9"});
  EXPECT_EQ(o.scale, 12u);
  EXPECT_EQ(o.edge_factor, 4u);
  EXPECT_EQ(o.kernel, Kernel::mixed);
  EXPECT_EQ(o.pr_iterations, 3u);
  EXPECT_EQ(o.suite.threads, 2u);
  EXPECT_EQ(o.suite.seed, 9u);
  EXPECT_EQ(parse({"--kernel", "pagerank"}).kernel, Kernel::pagerank);
  EXPECT_TRUE(parse({"--scale", "12", "--help"}).help);
}

TEST(GraphOptions, BadValuesNameTheFlag) {
  expect_value_error({"--scale", "40"}, "--scale", "from 8 to 26");
  expect_value_error({"--scale", "7"}, "--scale", "from 8 to 26");
  expect_value_error({"--kernel", ""}, "--kernel", "got nothing");
  expect_value_error({"--kernel", "dfs"}, "--kernel", "expected bfs, pagerank or mixed");
  expect_value_error({"--edge-factor", "0"}, "--edge-factor", "from 1 to 256");
  expect_value_error({"--pr-iterations", "x"}, "--pr-iterations", "");
  expect_value_error({"--threads", "0"}, "--threads", "from 1 to 256");
  expect_value_error({"--scale"}, "--scale", "got nothing");  // the value missing
}

TEST(GraphOptions, UnknownFlagsAreRefused) {
  EXPECT_THROW(parse({"--frob", "1"}), std::invalid_argument);
  EXPECT_THROW(parse({"12"}), std::invalid_argument);
}

// ---- workers -------------------------------------------------------------------

// Every kernel over a small graph with two workers: they run, stop when
// told, and every traversal and run they finished is valid.
TEST(GraphWorkers, EveryKernelRunsStopsAndValidates) {
  const Csr csr = unplaced(kronecker_edges(10, 8, 4, 1), 1024);
  for (Kernel k : {Kernel::bfs, Kernel::pagerank, Kernel::mixed}) {
    GraphOptions o;
    o.kernel = k;
    o.suite.threads = 2;
    o.pr_iterations = 3;
    std::atomic<bool> stop{false};
    Workers w(csr.view(), o, stop);
    EXPECT_GT(w.bytes(), 0u);
    w.start();
    // Until a few whole traversals / runs are surely done (edges only grow).
    while (w.edges() < 20 * csr.view().entries) std::this_thread::yield();
    stop.store(true);
    const Workers::Totals t = w.join();
    EXPECT_EQ(t.bad, 0u) << kernel_name(k);
    EXPECT_EQ(t.bfs_edges + t.pr_edges, w.edges());
    if (k != Kernel::pagerank) {
      EXPECT_GT(t.traversals, 0u);
      EXPECT_GT(t.bfs_teps, 0);
    }
    if (k != Kernel::bfs) {
      EXPECT_GT(t.pr_runs, 0u);
      EXPECT_GT(t.pr_eps, 0);
    }
  }
}

}  // namespace
