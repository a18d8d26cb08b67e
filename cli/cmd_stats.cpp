// Placeholder: `tierctl stats` is being written (issue 3).
#include "command.hpp"

namespace tierctl {
void add_stats_command(CLI::App& app, const GlobalOptions&, Action&) {
  app.add_subcommand("stats", "(not built yet)")->group("");  // hidden until it lands
}
}  // namespace tierctl
