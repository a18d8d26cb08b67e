// tier-gups: GUPS-style random updates over a table with a hot subset
// (program.hpp, docs/workload-suite.md "tier-gups").
#include "program.hpp"

int main(int argc, char** argv) {
  return tier_workloads::gups::gups_main(argc, argv);
}
