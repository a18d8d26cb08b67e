// A blocking client for tierd's control socket (one request, one reply).
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace tierctl {

/// Sends one request and returns the result; throws std::runtime_error naming
/// the socket when tierd is not reachable or replies with an error.
boost::json::value daemon_request(const std::string& socket_path, const std::string& method,
                                  const boost::json::value& params = nullptr);

}  // namespace tierctl
