// libFuzzer target: arbitrary bytes as what one client sends on one control
// socket connection, taken through the path tierd runs on it
// (daemon/control_server.cpp, serve() and dispatch()):
//
//   1. framing: asio::read_until '\n' into a dynamic buffer capped at
//      kMaxRequestBytes + 1, as serve() does, but from memory instead of a
//      socket (the same asio algorithm, synchronous);
//   2. no newline within the cap: the "larger than 1 MiB" error reply; the
//      peer closing before a newline: no reply;
//   3. otherwise the first line goes through parse_request, the method table
//      and encode_ok/encode_error, as dispatch() does.
//
// ControlServer itself cannot be driven without a socket (its constructor
// binds one, dispatch() is private), so steps 2-3 are restated here; keep
// them in step with control_server.cpp.
//
// Findings, besides crashes and sanitizer reports: parse_request throwing
// anything but std::invalid_argument (its documented contract), and a reply
// that is not exactly one line which tierctl's parse_reply reads back as the
// same result or the same error message.
#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tier/protocol/control_protocol.hpp"

namespace {

namespace asio = boost::asio;
namespace json = boost::json;
namespace control = tier::control;

[[noreturn]] void finding(const char* what, std::string_view detail) {
  // Long inputs make long details; the reproducer is the artifact anyway.
  std::fprintf(stderr, "fuzz_request: %s: %.*s\n", what,
               static_cast<int>(std::min<std::size_t>(detail.size(), 512)), detail.data());
  std::abort();
}

/// A SyncReadStream over a byte string: what the peer sent, then EOF.
class MemoryStream {
 public:
  explicit MemoryStream(std::string_view bytes) : rest_(bytes) {}

  template <typename MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, boost::system::error_code& ec) {
    if (rest_.empty()) {
      ec = asio::error::eof;
      return 0;
    }
    ec = {};
    const std::size_t n = asio::buffer_copy(buffers, asio::buffer(rest_.data(), rest_.size()));
    rest_.remove_prefix(n);
    return n;
  }

  template <typename MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

 private:
  std::string_view rest_;
};

using Handler = std::function<json::value(const json::value& params)>;

/// The daemon's methods as far as they need no machine: "status" as in
/// daemon/main.cpp; "topology" would need a loaded topology, so it stands
/// as a method that echoes its params, which also sends every decoded
/// params value through encode_ok's serializer (the future methods with
/// params will do that with parts of it).
const std::map<std::string, Handler>& methods() {
  static const std::map<std::string, Handler> table{
      {"status",
       [](const json::value&) {
         return json::value{{"daemon", "tierd"}, {"version", "fuzz"}, {"state", "running"}};
       }},
      {"topology", [](const json::value& params) { return params; }},
  };
  return table;
}

/// What dispatch() answers for one line, plus the result it carried (for
/// the round-trip check below).
struct Answer {
  std::string reply;
  std::optional<json::value> result;  // set for ok replies
};

Answer dispatch(const std::string& line) {
  try {
    control::Request request;
    try {
      request = control::parse_request(line);
    } catch (const std::invalid_argument&) {
      throw;
    } catch (const std::exception& e) {
      finding("parse_request threw other than std::invalid_argument", e.what());
    }
    auto it = methods().find(request.method);
    if (it == methods().end()) {
      return {control::encode_error("unknown method '" + request.method + "'"), std::nullopt};
    }
    json::value result = it->second(request.params);
    return {control::encode_ok(result), std::move(result)};
  } catch (const std::exception& e) {
    return {control::encode_error(e.what()), std::nullopt};
  }
}

/// serve(): frame the connection's first request; nullopt when the daemon
/// sends nothing (peer closed before a newline).
std::optional<Answer> serve(std::string_view input) {
  MemoryStream peer(input);
  std::string buffer;
  boost::system::error_code ec;
  const std::size_t length =
      asio::read_until(peer, asio::dynamic_buffer(buffer, control::kMaxRequestBytes + 1), '\n', ec);
  if (ec == asio::error::not_found) {
    return Answer{control::encode_error("request larger than 1 MiB"), std::nullopt};
  }
  if (ec) return std::nullopt;
  return dispatch(buffer.substr(0, length - 1));
}

/// Equality of a result and what tierctl reads back, except that doubles may
/// differ in the last bits: json_text() writes the shortest exact digits,
/// but Boost.JSON 1.81 parses them back without correct rounding (precise
/// parsing came in 1.83), e.g. 18893488144171107030 returns one ulp off.
bool same_value(const json::value& sent, const json::value& read) {
  if (sent.is_double() && read.is_double()) {
    const double a = sent.get_double();
    const double b = read.get_double();
    return a == b || std::fabs(a - b) <= 4 * std::numeric_limits<double>::epsilon() * std::fabs(a);
  }
  if (sent.is_array() && read.is_array()) {
    const json::array& x = sent.get_array();
    const json::array& y = read.get_array();
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), same_value);
  }
  if (sent.is_object() && read.is_object()) {
    const json::object& x = sent.get_object();
    const json::object& y = read.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& member : x) {
      const json::value* other = y.if_contains(member.key());
      if (other == nullptr || !same_value(member.value(), *other)) return false;
    }
    return true;
  }
  return sent == read;
}

/// The reply must be one line tierctl reads back to what the daemon meant.
void check_reply(const Answer& answer) {
  const std::string& reply = answer.reply;
  if (reply.empty() || reply.back() != '\n' || reply.find('\n') != reply.size() - 1) {
    finding("reply is not exactly one line", reply);
  }
  const std::string_view line(reply.data(), reply.size() - 1);
  if (answer.result) {
    json::value echoed;
    try {
      echoed = control::parse_reply(line);
    } catch (const std::exception& e) {
      finding("parse_reply rejected an ok reply", e.what());
    }
    if (!same_value(*answer.result, echoed)) finding("ok reply does not round-trip", reply);
    return;
  }
  try {
    control::parse_reply(line);
  } catch (const std::runtime_error&) {
    return;  // an error reply reaches tierctl as its message
  }
  finding("error reply read back as success", reply);
}

/// The size cap is 1 MiB, far beyond what mutation reaches at a useful
/// speed, so its edges are checked once per process on built inputs:
/// a request line of exactly kMaxRequestBytes is served, one byte more is
/// refused unread, and a request without a newline gets no reply.
void check_size_limit_edges() {
  const std::string request = R"({"version":1,"method":"status"})";
  auto padded = [&](std::size_t line_bytes) {
    return std::string(line_bytes - request.size(), ' ') + request + "\n";
  };
  const auto at_limit = serve(padded(control::kMaxRequestBytes));
  if (!at_limit || !at_limit->result) finding("a 1 MiB request line was not served", "");
  const auto over_limit = serve(padded(control::kMaxRequestBytes + 1));
  if (!over_limit || over_limit->reply != control::encode_error("request larger than 1 MiB")) {
    finding("a request line over 1 MiB was not refused", over_limit ? over_limit->reply : "");
  }
  if (serve(request)) finding("a request without newline was answered", request);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  check_size_limit_edges();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (const auto answer = serve(input)) check_reply(*answer);
  return 0;
}
