#include "control_server.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <memory>

#include "tier/control_protocol.hpp"

namespace tierd {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;

ControlServer::ControlServer(asio::io_context& io, std::string path)
    : path_(std::move(path)), acceptor_(io) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  // A socket file left by a crashed tierd would make bind fail; a live tierd
  // still accepting connections must not be displaced.
  if (std::filesystem::exists(path_, ec)) {
    stream::socket probe(io);
    boost::system::error_code connect_error;
    probe.connect(stream::endpoint(path_), connect_error);
    if (!connect_error) throw std::runtime_error("another tierd is serving " + path_);
    std::filesystem::remove(path_, ec);
  }
  acceptor_.open(stream());
  acceptor_.bind(stream::endpoint(path_));
  // Anyone may read (status, topology); changes will check SO_PEERCRED.
  ::chmod(path_.c_str(), 0666);
  acceptor_.listen();
}

ControlServer::~ControlServer() {
  stop();
}

void ControlServer::add_method(const std::string& name, Handler handler) {
  methods_[name] = std::move(handler);
}

void ControlServer::start() {
  accept_next();
}

void ControlServer::stop() {
  if (!acceptor_.is_open()) return;
  boost::system::error_code ec;
  acceptor_.close(ec);
  std::error_code fs_ec;
  std::filesystem::remove(path_, fs_ec);
}

void ControlServer::accept_next() {
  acceptor_.async_accept([this](boost::system::error_code ec, stream::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) serve(std::move(socket));
    accept_next();
  });
}

void ControlServer::serve(stream::socket socket) {
  struct Session {
    stream::socket socket;
    std::string buffer;
  };
  auto session = std::make_shared<Session>(Session{std::move(socket), {}});
  asio::async_read_until(
      session->socket, asio::dynamic_buffer(session->buffer, tier::control::kMaxRequestBytes + 1),
      '\n', [this, session](boost::system::error_code ec, std::size_t length) {
        std::string reply;
        if (ec == asio::error::not_found) {
          reply = tier::control::encode_error("request larger than 1 MiB");
        } else if (ec) {
          return;  // peer went away: nothing to answer
        } else {
          reply = dispatch(session->buffer.substr(0, length - 1));
        }
        auto text = std::make_shared<std::string>(std::move(reply));
        asio::async_write(session->socket, asio::buffer(*text),
                          [session, text](boost::system::error_code, std::size_t) {});
      });
}

std::string ControlServer::dispatch(const std::string& line) const {
  try {
    tier::control::Request request = tier::control::parse_request(line);
    auto it = methods_.find(request.method);
    if (it == methods_.end()) {
      return tier::control::encode_error("unknown method '" + request.method + "'");
    }
    return tier::control::encode_ok(it->second(request.params));
  } catch (const std::exception& e) {
    return tier::control::encode_error(e.what());
  }
}

}  // namespace tierd
