#include "daemon_client.hpp"

#include <boost/asio.hpp>
#include <stdexcept>

#include "tier/control_protocol.hpp"

namespace tierctl {

namespace asio = boost::asio;

boost::json::value daemon_request(const std::string& socket_path, const std::string& method,
                                  const boost::json::value& params) {
  asio::io_context io;
  asio::local::stream_protocol::socket socket(io);
  boost::system::error_code ec;
  socket.connect(asio::local::stream_protocol::endpoint(socket_path), ec);
  if (ec) {
    throw std::runtime_error("cannot reach tierd at " + socket_path + ": " + ec.message() +
                             " (is tierd running? see `make run` or --socket)");
  }
  asio::write(socket, asio::buffer(tier::control::encode_request(method, params)), ec);
  if (ec) throw std::runtime_error("sending to tierd at " + socket_path + ": " + ec.message());
  std::string reply;
  asio::read_until(socket, asio::dynamic_buffer(reply), '\n', ec);
  if (ec && reply.empty()) {
    throw std::runtime_error("reading from tierd at " + socket_path + ": " + ec.message());
  }
  return tier::control::parse_reply(reply.substr(0, reply.find('\n')));
}

}  // namespace tierctl
