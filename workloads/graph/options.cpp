#include "options.hpp"

#include <stdexcept>
#include <string>

#include "tier/values/values.hpp"

namespace tier_workloads::graph {

namespace values = tier::values;

const char* const kGraphUsage =
    "usage: tier-graph [--scale S] [--edge-factor E] [--kernel bfs|pagerank|mixed]\n"
    "                  [--pr-iterations N] [suite flags]\n"
    "A Graph500-style Kronecker graph in a CSR placed on --node; workers run BFS\n"
    "traversals and/or PageRank over it and report edges traversed per second.\n"
    "  --scale S            2^S vertices, 8-26 (default 18)\n"
    "  --edge-factor E      E x 2^S generated edges, 1-256 (default 16)\n"
    "  --kernel K           bfs (default), pagerank, or mixed (the two alternate)\n"
    "  --pr-iterations N    PageRank iterations per run, 1-1000 (default 10)\n"
    "  --help               this text\n"
    "suite flags:\n";

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::bfs:
      return "bfs";
    case Kernel::pagerank:
      return "pagerank";
    case Kernel::mixed:
      return "mixed";
  }
  return "?";
}

namespace {

Kernel parse_kernel(std::string_view flag, std::string_view value) {
  if (value == "bfs") return Kernel::bfs;
  if (value == "pagerank") return Kernel::pagerank;
  if (value == "mixed") return Kernel::mixed;
  throw values::ValueError(std::string(flag), std::string(value),
                           value.empty() ? "expected bfs, pagerank or mixed, got nothing"
                                         : "expected bfs, pagerank or mixed");
}

// The graph's own flags; false for any other.
bool parse_graph_flag(std::string_view flag, std::string_view value, GraphOptions& o) {
  if (flag == "--scale") {
    o.scale = static_cast<unsigned>(values::parse_count(flag, value, 8, 26));
  } else if (flag == "--edge-factor") {
    o.edge_factor = static_cast<unsigned>(values::parse_count(flag, value, 1, 256));
  } else if (flag == "--kernel") {
    o.kernel = parse_kernel(flag, value);
  } else if (flag == "--pr-iterations") {
    o.pr_iterations = static_cast<unsigned>(values::parse_count(flag, value, 1, 1000));
  } else {
    return false;
  }
  return true;
}

}  // namespace

GraphOptions parse_graph_options(const std::vector<std::string_view>& args) {
  GraphOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view flag = args[i];
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      return o;
    }
    if (flag.substr(0, 2) != "--") {
      throw std::invalid_argument("unexpected argument '" + std::string(flag) + "'");
    }
    // A value missing at the end reads as an empty one: the flag's own
    // parser then says what it expected ("got nothing").
    const std::string_view value = i + 1 < args.size() ? args[++i] : std::string_view();
    if (!parse_suite_flag(flag, value, o.suite) && !parse_graph_flag(flag, value, o)) {
      throw std::invalid_argument("unknown flag " + std::string(flag));
    }
  }
  return o;
}

}  // namespace tier_workloads::graph
