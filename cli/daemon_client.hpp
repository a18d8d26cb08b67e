// A blocking client for tierd's control socket (one request, one reply;
// protocol in docs/api.md).
//
// Failures are typed so commands and main() can tell them apart:
//   DaemonUnreachable  nothing answers at the socket (tierd not running, a
//                      stale socket file, no permission to connect);
//   DaemonError        tierd answered with an error reply; carries the method
//                      and the reply's `code` (bad_request, permission, ...);
//   std::runtime_error the conversation broke off (e.g. tierd exited mid-way).
// Both typed errors derive from std::runtime_error, so a caller that only
// catches that keeps working.
#pragma once

#include <boost/json/value.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace tierctl {

/// No tierd answers at `socket()`. what() is one line naming the socket and
/// saying how to start tierd.
class DaemonUnreachable : public std::runtime_error {
 public:
  DaemonUnreachable(const std::string& message, std::string socket, bool not_running)
      : std::runtime_error(message), socket_(std::move(socket)), not_running_(not_running) {}
  const std::string& socket() const { return socket_; }
  /// True when nothing listens there (no socket file, connection refused);
  /// false when something else stopped the connection (e.g. permission).
  bool not_running() const { return not_running_; }

 private:
  std::string socket_;
  bool not_running_;
};

/// tierd refused the request. what() is the daemon's message as sent.
class DaemonError : public std::runtime_error {
 public:
  DaemonError(std::string method, const std::string& message, std::string code)
      : std::runtime_error(message), method_(std::move(method)), code_(std::move(code)) {}
  const std::string& method() const { return method_; }
  /// The reply's `code` (docs/api.md, Errors); empty when the reply had none.
  const std::string& code() const { return code_; }

 private:
  std::string method_;
  std::string code_;
};

/// Sends one request and returns the reply's `result` (null when absent).
/// Throws DaemonUnreachable, DaemonError or std::runtime_error (see above).
boost::json::value daemon_request(const std::string& socket_path, const std::string& method,
                                  const boost::json::value& params = nullptr);

/// The one-line explanation for a DaemonError, without the "tierctl: "
/// prefix: "<method>: <error>", plus a hint for code `permission`.
std::string describe(const DaemonError& error);

/// tierctl's exit code for a refusal: 2 when tierd judged the input bad
/// (code bad_request), 1 for every other code (docs/cli.md, "Exit codes").
int exit_code(const DaemonError& error);

}  // namespace tierctl
