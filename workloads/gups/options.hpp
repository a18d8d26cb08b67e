// tier-gups' command line: the suite's shared flags (suite_options.hpp) and
// its own, in tier's value grammar. parse_options() throws
// std::invalid_argument (a tier::values::ValueError naming the flag for a
// bad value) and the program prints it with the usage and exits 2, so the
// rest only ever sees a consistent Options.
//   --size BYTES        the table (64-bit words), a multiple of 4K
//   --hot BYTES         the hot subset, a multiple of 4K, at most --size
//                       (default: 1/8 of the table, at least 4K)
//   --hot-offset BYTES  where it starts in phase 0, a multiple of 4K below
//                       --size (default 0; it wraps past the table's end)
//   --hot-fraction F    the share of updates that go to it, 0..1 (default 0.9)
//   --phase-shift D     every D it moves one hot length further (wrapping)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "suite_options.hpp"
#include "update.hpp"

namespace tier_workloads::gups {

struct Options {
  SuiteOptions suite;
  std::uint64_t size = 0;  // bytes
  std::uint64_t hot = 0;   // bytes
  std::uint64_t hot_offset = 0;
  double hot_fraction = 0.9;
  double phase_shift_s = 0;  // 0: the hot subset never moves
  bool help = false;         // --help: print the usage, nothing else

  /// The table in words for the update streams.
  Layout layout() const;
};

/// The usage text, the shared flags included.
const std::string& usage();

/// `args` without the program's name.
Options parse_options(const std::vector<std::string>& args);

}  // namespace tier_workloads::gups
