// How an error ends tierctl: one line (or three, for a usage error) on
// stderr, and with --json also one JSON object on stdout, so a script reading
// stdout always gets exactly one document (docs/cli.md, "Errors").
//
//   {"error": {"code": "bad_input", "message": "--to '7': no such NUMA node 7 on this machine
//   (nodes: 0)"}}
//
// The codes: bad_usage (the command line's shape: unknown command or option,
// missing option or value, extra argument), bad_input (a value refused: empty,
// out of range, malformed, no such node, CPU, process or path, a path of the
// wrong kind), both exit 2; tierd's own reply codes as it sent them
// (bad_request exits 2, permission, not_found, conflict, failed ... exit 1);
// daemon_unreachable (no tierd at --socket, exit 1); failed and permission
// for an operation tierctl itself could not carry out (exit 1).
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace tierctl {

struct ErrorReport {
  int exit_code = 1;
  std::string code;     // the JSON code word (above)
  std::string prefix;   // "tierctl migrate", "tierctl"
  std::string message;  // one sentence, without the prefix
  /// For errors in how the command was used: its usage line and the command
  /// whose --help to point at ("tierctl migrate"); empty: neither is shown.
  std::string usage;
  std::string help_command;
};

/// {"error": {"code": code, "message": message}}
boost::json::object error_json(std::string_view code, std::string_view message);

/// A command that has a result despite failing (migrate stopped early, a
/// plot or trace not written) prints one document: its result with this
/// "error" member added.
void add_error(boost::json::object& result, std::string_view code, std::string_view message);

/// Prints `report` (stderr; stdout too when `json`) and returns its exit code.
int print_error(const ErrorReport& report, bool json);

}  // namespace tierctl
