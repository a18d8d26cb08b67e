// Placeholder until the doctor command lands.
#include "command.hpp"

namespace tierctl {
void add_doctor_command(CLI::App& app, const GlobalOptions&, Action&) {
  app.add_subcommand("doctor", "Probe kernel features tier depends on (not built yet)");
}
}  // namespace tierctl
