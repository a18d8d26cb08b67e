// The tierctl command line both binaries share: the app with its global
// options, and how a parse and the chosen action become an exit code.
//
// tierctl is two programs (docs/cli.md, "Two binaries"): the small front
// `tierctl` handles `run` itself and hands every other command to
// `tierctl-full`. Both build their app here, so the usage text, the global
// options and the exit codes are one definition.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>

#include "command.hpp"

namespace tierctl {

/// The app with tierctl's description, --version and the global options
/// (--root, --hwloc-xml, --socket) bound to `global`; subcommands are added
/// by the caller.
std::unique_ptr<CLI::App> make_app(GlobalOptions& global);

/// Parses argv, then runs the action a subcommand chose. Parse errors print
/// the failing command's usage and return kUsage; errors thrown by the action
/// are printed as one "tierctl: ..." line with their exit code.
int parse_and_run(CLI::App& app, const Action& action, int argc, char** argv);

}  // namespace tierctl
