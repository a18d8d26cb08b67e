// How tierctl explains a command line it cannot run: each command's one
// usage line (also the "Usage:" line of its --help), CLI11's parse errors
// retold in tierctl's words, and the command or option nearest to one
// mistyped.
//
// Contract: explain_parse_error() never returns CLI11's class names
// (RequiredError, ExtrasError, ...) or its phrasing ("The following argument
// was not expected", "1 required NODE missing", "At Most 1 required");
// every CLI11 error type a user can trigger has its own sentence naming the
// flag or word typed.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierctl {

/// The formatter make_app() installs: --help prints the usage line set with
/// set_usage() instead of CLI11's "Usage: tierctl migrate [OPTIONS]".
std::shared_ptr<CLI::Formatter> make_usage_formatter();

/// Sets the one usage line of `cmd`, without "Usage: ", e.g.
/// "tierctl migrate --pid PID --to NODE [OPTIONS]". `cmd` must have the
/// formatter of make_usage_formatter() (every command of make_app has).
void set_usage(CLI::App& cmd, std::string line);
/// The line set for `cmd`, or "tierctl <path> [OPTIONS]" when none is.
std::string usage_line(const CLI::App& cmd);

/// "tierctl" for the app itself, "tierctl workloads register" for a subcommand.
std::string command_path(const CLI::App& cmd);
/// The deepest command the last parse reached (the app itself when none).
const CLI::App& selected_command(const CLI::App& app);

/// `error`, thrown while parsing for `failing` (selected_command()), as one
/// sentence: "--to needs a value (NODE)", "unknown option '--jsn' (did you
/// mean '--json'?)", "unknown command 'migarte' (did you mean 'migrate'?)".
std::string explain_parse_error(const CLI::App& app, const CLI::App& failing,
                                const CLI::ParseError& error);

/// The candidate nearest to `typed` when it is close enough to be a typo:
/// at most two edits (a swap of neighbours counts as one) and fewer than
/// the word's length, or the only candidate `typed` (3+ letters) begins.
std::optional<std::string> closest(std::string_view typed,
                                   const std::vector<std::string>& candidates);

}  // namespace tierctl
