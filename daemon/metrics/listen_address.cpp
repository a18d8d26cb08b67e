#include "metrics/listen_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>

namespace tierd {

namespace {

[[noreturn]] void fail(std::string_view text, const std::string& why) {
  throw ListenAddressError("metrics listen address '" + std::string(text) + "': " + why +
                           " (expected \"IPv4:PORT\", \"[IPv6]:PORT\" or \"off\", e.g. \"" +
                           std::string(kDefaultMetricsListen) + "\")");
}

std::uint16_t parse_port(std::string_view text, std::string_view port) {
  if (port.empty()) fail(text, "missing port");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  // from_chars accepts no sign, so "-1" and "+1" land here too.
  if (ec != std::errc() || end != port.data() + port.size()) {
    fail(text, "port '" + std::string(port) + "' is not a number");
  }
  if (value > 65535) fail(text, "port " + std::string(port) + " is out of range 0-65535");
  return static_cast<std::uint16_t>(value);
}

}  // namespace

std::string ListenAddress::to_string() const {
  return (ipv6() ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<ListenAddress> parse_listen_address(std::string_view text) {
  if (text == "off") return std::nullopt;
  if (text.empty()) fail(text, "empty");
  ListenAddress address;
  std::string_view port;
  if (text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) fail(text, "'[' without ']'");
    address.host = std::string(text.substr(1, close - 1));
    const std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') fail(text, "missing ':PORT' after ']'");
    port = rest.substr(1);
    in6_addr parsed{};
    if (inet_pton(AF_INET6, address.host.c_str(), &parsed) != 1) {
      fail(text, "'" + address.host + "' is not a numeric IPv6 address");
    }
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) fail(text, "missing ':PORT'");
    address.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
    if (address.host.empty()) fail(text, "missing host (use 0.0.0.0 to listen on every address)");
    if (address.host.find(':') != std::string::npos) {
      fail(text, "IPv6 addresses need brackets, e.g. \"[::1]:9464\"");
    }
    in_addr parsed{};
    if (inet_pton(AF_INET, address.host.c_str(), &parsed) != 1) {
      fail(text,
           "'" + address.host + "' is not a numeric IPv4 address (host names are not resolved)");
    }
  }
  address.port = parse_port(text, port);
  return address;
}

}  // namespace tierd
