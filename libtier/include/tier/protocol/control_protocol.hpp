// The tierd control protocol: one JSON object per line over a Unix stream
// socket. Request {"version":1,"method":"topology","params":{...}}; reply
// {"version":1,"ok":true,"result":...} or {"version":1,"ok":false,"error":"..."}.
// Documented in docs/api.md; shared by tierd and tierctl so both agree.
#pragma once

#include <boost/json/value.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tier::control {

inline constexpr int kProtocolVersion = 1;
/// Requests above this size are refused without parsing.
inline constexpr std::size_t kMaxRequestBytes = 1 << 20;

/// Machine-readable reason of an error reply (docs/api.md, "Errors").
enum class ErrorCode {
  bad_request,
  too_large,
  unknown_method,
  permission,
  not_found,
  conflict,
  failed
};
const char* to_string(ErrorCode code);

/// Thrown by a method handler to reply with that code; the server turns any
/// other exception into `failed` (std::invalid_argument into `bad_request`).
struct Error : std::runtime_error {
  Error(ErrorCode error_code, const std::string& message)
      : std::runtime_error(message), code(error_code) {}
  ErrorCode code;
};

/// An error reply as tierctl reads it: the message and the code's name.
struct ReplyError : std::runtime_error {
  ReplyError(const std::string& message, std::string error_code)
      : std::runtime_error(message), code(std::move(error_code)) {}
  std::string code;  // "permission", ...; "" when the daemon sent none
};

std::string encode_request(std::string_view method, const boost::json::value& params = nullptr);
std::string encode_ok(const boost::json::value& result);
std::string encode_error(std::string_view message, ErrorCode code = ErrorCode::bad_request);

struct Request {
  std::string method;
  boost::json::value params;
};
/// Parses one request line; throws std::invalid_argument with a reason.
Request parse_request(std::string_view line);

/// Parses a reply line; returns the result, throws ReplyError with the
/// daemon's message and code for an error reply, std::runtime_error for a
/// malformed one.
boost::json::value parse_reply(std::string_view line);

}  // namespace tier::control
