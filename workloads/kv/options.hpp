// tier-kv's command line: the suite's shared flags (suite_options.hpp) and
// its own (docs/workload-suite.md "tier-kv"). --node and --policy are refused:
// the data lives in the server, whose placement is the harness's to choose
// (numactl/tierd on redis-server), not the client's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "connection.hpp"
#include "suite_options.hpp"

namespace tier_kv {

struct Options {
  tier_workloads::SuiteOptions suite;
  Endpoint server;
  std::uint32_t keys = 10000;
  std::size_t value_size = 1024;
  double write_fraction = 0.05;
  double theta = 0.99;     // 0: uniform
  unsigned pipeline = 64;  // commands per round trip in the load and the verification
  double timeout_s = 10;
};

/// The --help text.
std::string usage_text();

/// Parses argv; prints the usage and exits 0 on --help; on bad usage prints
/// "tier-kv: <why>" and the usage to stderr and exits 2.
Options parse_options(int argc, char** argv);

}  // namespace tier_kv
