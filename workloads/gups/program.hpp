// tier-gups from its command line to its exit code (docs/workload-suite.md
// "tier-gups"): a library function so the unit test can run the whole
// program; main.cpp only calls it.
//   table placed and filled → ready line → measured run (interval lines) →
//   placement taken → replay → every word checked → final line.
// Exit: 0 all words verified, 1 bad words or a failure (message on stderr),
// 2 bad usage.
#pragma once

namespace tier_workloads::gups {

int gups_main(int argc, char** argv);

}  // namespace tier_workloads::gups
