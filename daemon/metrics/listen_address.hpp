// Where the metrics exporter listens: the `[metrics] listen` config value.
//
// Contract: parse_listen_address() is pure (no sockets, no name lookups). It
// accepts "off" (exporter disabled → nullopt), "IPv4:PORT" or "[IPv6]:PORT"
// with numeric addresses only, because the HTTP server (civetweb) binds
// numeric addresses and a name that resolves differently at boot would
// expose metrics somewhere unintended. PORT 0 asks the kernel for a free port
// (tests). Anything else throws ListenAddressError saying what was expected.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tierd {

struct ListenAddress {
  std::string host;  // numeric IPv4, or IPv6 without brackets
  std::uint16_t port = 0;
  bool ipv6() const { return host.find(':') != std::string::npos; }
  /// "127.0.0.1:9464" or "[::1]:9464": what the HTTP server binds and what errors name.
  std::string to_string() const;
  bool operator==(const ListenAddress&) const = default;
};

struct ListenAddressError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

inline constexpr std::string_view kDefaultMetricsListen = "127.0.0.1:9464";

std::optional<ListenAddress> parse_listen_address(std::string_view text);

}  // namespace tierd
