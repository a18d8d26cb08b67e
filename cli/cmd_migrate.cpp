// Placeholder: `tierctl migrate` is being written (issue 3).
#include "command.hpp"

namespace tierctl {
void add_migrate_command(CLI::App& app, const GlobalOptions&, Action&) {
  app.add_subcommand("migrate", "(not built yet)")->group("");  // hidden until it lands
}
}  // namespace tierctl
