// Placeholder: `tierctl bench` is being written (issue 3).
#include "command.hpp"

namespace tierctl {
void add_bench_command(CLI::App& app, const GlobalOptions&, Action&) {
  app.add_subcommand("bench", "(not built yet)")->group("");  // hidden until it lands
}
}  // namespace tierctl
