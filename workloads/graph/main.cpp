// tier-graph: a Graph500-style graph kernel workload of the suite
// (docs/workload-suite.md "tier-graph"). Builds a Kronecker graph's CSR on
// --node, prints the ready line, runs BFS and/or PageRank workers over it
// for the measured part, then proves every byte of the CSR survived (its
// checksum from right after building) and prints the final line:
//   {"final":true,"workload":"graph","unit":"edges",...,"verified":BYTES,
//    "verified_unit":"bytes","bad":B,"scale":S,...,"nodes":{...}}
// exiting 1 when bad > 0 (a changed CSR byte, a failed BFS validation, a
// PageRank run whose ranks did not sum to 1).
#include <numa.h>
#include <sched.h>
#include <unistd.h>

#include <boost/json/object.hpp>
#include <cinttypes>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "csr.hpp"
#include "kronecker.hpp"
#include "options.hpp"
#include "report.hpp"
#include "run_control.hpp"
#include "tier/json/json_text.hpp"
#include "workers.hpp"

namespace graph = tier_workloads::graph;
using tier_workloads::monotonic_s;

namespace {

[[noreturn]] void usage_error(const std::string& why) {
  std::fprintf(stderr, "tier-graph: %s\n%s%s", why.c_str(), graph::kGraphUsage,
               tier_workloads::kSuiteUsage);
  std::exit(2);
}

// The generator's threads: every CPU this process may run on (the build is
// not measured; under emulation it is the long part of a start).
unsigned build_threads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
}

// A node too small for the graph would meet the OOM killer in the first
// touch under MPOL_BIND: say so before building instead. The CSR's bound
// counts every generated edge twice (self-loops are dropped later).
void require_room(const graph::GraphOptions& o) {
  if (o.suite.node < 0 || numa_available() < 0) return;
  const std::uint64_t vertices = std::uint64_t{1} << o.scale;
  const std::uint64_t needed = (vertices + 1) * sizeof(std::uint64_t) +
                               2 * vertices * o.edge_factor * sizeof(std::uint32_t) +
                               graph::Workers::bytes_for(o, vertices);
  long long free_bytes = 0;
  if (numa_node_size64(o.suite.node, &free_bytes) < 0) return;
  if (needed > static_cast<std::uint64_t>(std::max(0LL, free_bytes))) {
    throw std::runtime_error(
        "node " + std::to_string(o.suite.node) + " has " + std::to_string(free_bytes >> 20) +
        " MiB free; the graph at --scale " + std::to_string(o.scale) + " --edge-factor " +
        std::to_string(o.edge_factor) + " and the workers' arrays need up to " +
        std::to_string(needed >> 20) + " MiB (lower --scale or --edge-factor)");
  }
}

boost::json::object nodes_json(const std::map<int, std::size_t>& nodes) {
  boost::json::object out;
  for (const auto& [node, pages] : nodes) out[std::to_string(node)] = pages;
  return out;
}

std::string hex(std::uint64_t v) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, v);
  return text;
}

int run(const graph::GraphOptions& o) {
  const bool bfs = o.kernel != graph::Kernel::pagerank;
  const bool pagerank = o.kernel != graph::Kernel::bfs;
  tier_workloads::RunControl control;  // before any thread, the generator's too
  tier_workloads::Report report(o.suite.report, "graph", "edges");
  require_room(o);

  const double t0 = monotonic_s();
  const auto vertices = static_cast<std::uint32_t>(std::uint64_t{1} << o.scale);
  std::unique_ptr<graph::Csr> csr;
  {
    // The edge list is ordinary memory, gone before the ready line.
    const std::vector<graph::Edge> edges =
        graph::kronecker_edges(o.scale, o.edge_factor, o.suite.seed, build_threads());
    csr = std::make_unique<graph::Csr>(edges, vertices, o.suite.node, o.suite.policy);
  }
  const double build_s = monotonic_s() - t0;
  const std::uint64_t expected = csr->checksum();
  const graph::GraphView g = csr->view();
  graph::Workers workers(g, o, control.stopping());

  boost::json::object ready;
  ready["pid"] = getpid();
  ready["workload"] = "graph";
  ready["bytes"] = csr->bytes() + workers.bytes();
  ready["csr_bytes"] = csr->bytes();
  ready["scale"] = o.scale;
  ready["edge_factor"] = o.edge_factor;
  ready["vertices"] = g.vertices;
  ready["edges"] = g.entries;
  ready["kernel"] = graph::kernel_name(o.kernel);
  ready["threads"] = o.suite.threads;
  ready["node"] = o.suite.node;
  ready["policy"] = tier_workloads::placement_name(o.suite.policy);
  ready["build_s"] = build_s;
  ready["checksum"] = hex(expected);
  if (!control.ready(o.suite, tier::json_text(ready))) return 1;
  if (!control.wait_start(o.suite)) return 0;

  workers.start();
  std::uint64_t last_edges = 0;
  double last_t = 0;
  const double seconds = control.run(o.suite, [&](double t) {
    const std::uint64_t now = workers.edges();
    report.interval(t, now - last_edges, t - last_t, nullptr);
    last_edges = now;
    last_t = t;
  });
  const graph::Workers::Totals totals = workers.join();

  // Where the CSR is, asked before the checksum pass reads every page (its
  // faults could move them).
  const auto nodes = csr->nodes();
  const graph::CsrCheck check = graph::check_csr(*csr, expected);
  if (check.bad != 0) {
    std::fprintf(stderr, "tier-graph: the CSR's checksum changed (built %s, now %s)\n",
                 hex(expected).c_str(), hex(csr->checksum()).c_str());
  }

  tier_workloads::Report::Final f;
  f.ops = totals.bfs_edges + totals.pr_edges;
  f.seconds = seconds;
  f.verified = check.verified;
  f.verified_unit = "bytes";
  f.bad = check.bad + totals.bad;
  f.extra["scale"] = o.scale;
  f.extra["edge_factor"] = o.edge_factor;
  f.extra["vertices"] = g.vertices;
  f.extra["edges"] = g.entries;
  f.extra["kernel"] = graph::kernel_name(o.kernel);
  f.extra["threads"] = o.suite.threads;
  f.extra["traversals"] = totals.traversals;
  if (bfs) {
    f.extra["bfs_edges"] = totals.bfs_edges;
    f.extra["bfs_teps"] = totals.bfs_teps;
  }
  if (pagerank) {
    f.extra["pr_runs"] = totals.pr_runs;
    f.extra["pr_edges"] = totals.pr_edges;
    f.extra["pr_eps"] = totals.pr_eps;
  }
  f.extra["build_s"] = build_s;
  f.extra["nodes"] = nodes_json(nodes);
  report.final(f);
  return f.bad > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  graph::GraphOptions o;
  try {
    o = graph::parse_graph_options(std::vector<std::string_view>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  }
  if (o.help) {
    std::printf("%s%s", graph::kGraphUsage, tier_workloads::kSuiteUsage);
    return 0;
  }
  try {
    return run(o);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "tier-graph: out of memory building the graph at --scale %u "
                 "(lower --scale or --edge-factor)\n",
                 o.scale);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tier-graph: %s\n", e.what());
  }
  return 1;
}
