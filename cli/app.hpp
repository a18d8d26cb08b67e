// The tierctl command line both binaries share: the app with its global
// options, and how a parse and the chosen action become an exit code.
//
// tierctl is two programs (docs/cli.md, "Two binaries"): the small front
// `tierctl` handles `run` itself and hands every other command to
// `tierctl-full`. Both build their app here, so the usage text, the global
// options, the error output and the exit codes are one definition.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>

#include "command.hpp"

namespace tierctl {

/// The app with tierctl's description, --version and the global options
/// (--root, --hwloc-xml, --socket) bound to `global`; subcommands are added
/// by the caller, each with its usage line (usage.hpp, set_usage).
std::unique_ptr<CLI::App> make_app(GlobalOptions& global);

/// Parses argv, checks the global paths, then runs the action a subcommand
/// chose, and turns every error into the one exit-code rule (command.hpp,
/// ExitCode): a parse error or a refused value prints "tierctl <cmd>:
/// <sentence>", the command's usage line and a pointer to its --help (exit
/// 2); a failure prints "tierctl: <sentence>" (exit 1; tierd's bad_request
/// exits 2). With --json the error is also one JSON object on stdout
/// (error_output.hpp).
int parse_and_run(CLI::App& app, const GlobalOptions& global, const Action& action, int argc,
                  char** argv);

}  // namespace tierctl
