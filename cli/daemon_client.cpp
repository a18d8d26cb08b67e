#include "daemon_client.hpp"

#include <boost/asio.hpp>
#include <boost/json.hpp>

#include "tier/protocol/control_protocol.hpp"

namespace tierctl {

namespace asio = boost::asio;

namespace {

[[noreturn]] void throw_unreachable(const std::string& socket_path,
                                    const boost::system::error_code& ec) {
  const std::string how =
      "start it with `systemctl start tierd` or `make run`, or pass --socket PATH for another "
      "instance";
  if (ec == asio::error::not_found || ec == boost::system::errc::no_such_file_or_directory) {
    throw DaemonUnreachable(
        "tierd is not running (cannot reach tierd: no socket at " + socket_path + "); " + how,
        socket_path, true);
  }
  if (ec == asio::error::connection_refused) {
    throw DaemonUnreachable("tierd is not running (cannot reach tierd: nothing listens on " +
                                socket_path + ", a stale socket); " + how,
                            socket_path, true);
  }
  throw DaemonUnreachable("cannot reach tierd at " + socket_path + ": " + ec.message(), socket_path,
                          false);
}

}  // namespace

boost::json::value daemon_request(const std::string& socket_path, const std::string& method,
                                  const boost::json::value& params) {
  asio::io_context io;
  asio::local::stream_protocol::socket socket(io);
  boost::system::error_code ec;
  socket.connect(asio::local::stream_protocol::endpoint(socket_path), ec);
  if (ec) throw_unreachable(socket_path, ec);
  asio::write(socket, asio::buffer(tier::control::encode_request(method, params)), ec);
  if (ec) throw std::runtime_error("sending to tierd at " + socket_path + ": " + ec.message());
  std::string reply;
  asio::read_until(socket, asio::dynamic_buffer(reply), '\n', ec);
  if (ec && reply.empty()) {
    throw std::runtime_error(
        "reading from tierd at " + socket_path + ": " +
        (ec == asio::error::eof ? std::string("connection closed without a reply") : ec.message()));
  }
  try {
    return tier::control::parse_reply(reply.substr(0, reply.find('\n')));
  } catch (const tier::control::ReplyError& e) {
    throw DaemonError(method, e.what(), e.code);
  }
}

std::string describe(const DaemonError& error) {
  std::string text = error.method() + ": " + error.what();
  if (error.code() == "permission") text += " (run as root or as a member of group 'tier')";
  return text;
}

int exit_code(const DaemonError& error) {
  return error.code() == "bad_request" ? 2 : 1;
}

}  // namespace tierctl
