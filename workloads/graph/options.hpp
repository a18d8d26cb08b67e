// tier-graph's command line: the suite's shared flags (suite_options.hpp)
// and the graph's own:
//   --scale S            2^S vertices, 8-26 (default 18)
//   --edge-factor E      E x 2^S generated edges, 1-256 (default 16)
//   --kernel K           bfs (default) | pagerank | mixed
//   --pr-iterations N    PageRank iterations per run, 1-1000 (default 10)
// parse_graph_options() throws tier::values::ValueError naming the flag for
// a bad value and std::invalid_argument for an unknown flag or a missing
// value; main prints "tier-graph: <what()>" and the usage and exits 2.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "suite_options.hpp"

namespace tier_workloads::graph {

enum class Kernel { bfs, pagerank, mixed };

const char* kernel_name(Kernel k);

struct GraphOptions {
  SuiteOptions suite;
  unsigned scale = 18;
  unsigned edge_factor = 16;
  Kernel kernel = Kernel::bfs;
  unsigned pr_iterations = 10;
  bool help = false;  // --help or -h: print the usage, nothing else
};

/// `args` without the program name.
GraphOptions parse_graph_options(const std::vector<std::string_view>& args);

/// The whole usage text (the program's flags and the suite's).
extern const char* const kGraphUsage;

}  // namespace tier_workloads::graph
