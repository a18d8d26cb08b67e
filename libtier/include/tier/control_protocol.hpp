// The tierd control protocol: one JSON object per line over a Unix stream
// socket. Request {"version":1,"method":"topology","params":{...}}; reply
// {"version":1,"ok":true,"result":...} or {"version":1,"ok":false,"error":"..."}.
// Documented in docs/api.md; shared by tierd and tierctl so both agree.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace tier::control {

inline constexpr int kProtocolVersion = 1;
/// Requests above this size are refused without parsing.
inline constexpr std::size_t kMaxRequestBytes = 1 << 20;

std::string encode_request(std::string_view method, const boost::json::value& params = nullptr);
std::string encode_ok(const boost::json::value& result);
std::string encode_error(std::string_view message);

struct Request {
  std::string method;
  boost::json::value params;
};
/// Parses one request line; throws std::invalid_argument with a reason.
Request parse_request(std::string_view line);

/// Parses a reply line; returns the result or throws std::runtime_error with
/// the daemon's error message.
boost::json::value parse_reply(std::string_view line);

}  // namespace tier::control
