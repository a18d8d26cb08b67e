#include "control_server.hpp"

#include <sys/socket.h>
#include <sys/stat.h>

#include <boost/json.hpp>
#include <filesystem>

#include "tier/protocol/control_protocol.hpp"

namespace tierd {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;
namespace control = tier::control;

struct ControlServer::Session {
  Session(stream::socket s, Peer p, std::shared_ptr<std::size_t> count)
      : socket(std::move(s)), peer(p), connections(std::move(count)) {
    ++*connections;
  }
  ~Session() { --*connections; }
  stream::socket socket;
  Peer peer;
  std::shared_ptr<std::size_t> connections;
  std::string buffer;
};

namespace {

Peer peer_of(stream::socket& socket) {
  Peer peer;
  ucred credentials{};
  socklen_t length = sizeof credentials;
  if (::getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0) {
    peer.pid = credentials.pid;
    peer.uid = credentials.uid;
    peer.gid = credentials.gid;
  }
  return peer;  // unknown credentials stay uid -1: read-only
}

}  // namespace

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
  // Anyone may connect and read; changes are checked per request (SO_PEERCRED).
  ::chmod(path_.c_str(), 0666);
  acceptor_.listen(asio::socket_base::max_listen_connections);
}

ControlServer::~ControlServer() {
  stop();
}

void ControlServer::add_method(const std::string& name, Access access, Handler handler) {
  add_async_method(name, access,
                   [handler = std::move(handler)](const boost::json::value& params,
                                                  const Peer& peer, Done done) {
                     boost::json::value result;
                     try {
                       result = handler(params, peer);
                     } catch (...) {
                       done(nullptr, std::current_exception());
                       return;
                     }
                     done(std::move(result), nullptr);
                   });
}

void ControlServer::add_async_method(const std::string& name, Access access, AsyncHandler handler) {
  methods_[name] = Method{access, std::move(handler)};
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
    if (!ec) {
      Peer peer = peer_of(socket);
      read_next(std::make_shared<Session>(std::move(socket), peer, connections_));
    }
    // EMFILE and the like: keep accepting; the next attempt may succeed.
    accept_next();
  });
}

void ControlServer::read_next(std::shared_ptr<Session> session) {
  asio::async_read_until(
      session->socket, asio::dynamic_buffer(session->buffer, control::kMaxRequestBytes + 1), '\n',
      [this, session](boost::system::error_code ec, std::size_t length) {
        if (ec == asio::error::not_found) {
          // Over 1 MiB without a newline: the rest of this request cannot be
          // told apart from the next one, so answer and close.
          auto text = std::make_shared<std::string>(
              control::encode_error("request larger than 1 MiB", control::ErrorCode::too_large));
          asio::async_write(session->socket, asio::buffer(*text),
                            [session, text](boost::system::error_code, std::size_t) {});
          return;
        }
        if (ec) return;  // peer closed or went away: nothing to answer
        std::string line = session->buffer.substr(0, length - 1);
        session->buffer.erase(0, length);
        dispatch(line, session->peer,
                 [this, session](boost::json::value result, std::exception_ptr error) {
                   std::string reply;
                   if (!error) {
                     reply = control::encode_ok(result);
                   } else {
                     try {
                       std::rethrow_exception(error);
                     } catch (const control::Error& e) {
                       reply = control::encode_error(e.what(), e.code);
                     } catch (const std::invalid_argument& e) {
                       reply = control::encode_error(e.what(), control::ErrorCode::bad_request);
                     } catch (const std::exception& e) {
                       reply = control::encode_error(e.what(), control::ErrorCode::failed);
                     }
                   }
                   auto text = std::make_shared<std::string>(std::move(reply));
                   asio::async_write(
                       session->socket, asio::buffer(*text),
                       [this, session, text](boost::system::error_code write_error, std::size_t) {
                         if (!write_error && acceptor_.is_open()) read_next(session);
                       });
                 });
      });
}

void ControlServer::dispatch(const std::string& line, const Peer& peer, Done done) const {
  control::Request request;
  try {
    request = control::parse_request(line);
    if (!request.params.is_null() && !request.params.is_object()) {
      throw std::invalid_argument("\"params\" must be an object");
    }
  } catch (const std::exception& e) {
    done(nullptr,
         std::make_exception_ptr(control::Error(control::ErrorCode::bad_request, e.what())));
    return;
  }
  auto it = methods_.find(request.method);
  if (it == methods_.end()) {
    done(nullptr,
         std::make_exception_ptr(control::Error(control::ErrorCode::unknown_method,
                                                "unknown method '" + request.method + "'")));
    return;
  }
  if (it->second.access == Access::change && !may_change(peer)) {
    done(nullptr, std::make_exception_ptr(
                      control::Error(control::ErrorCode::permission,
                                     "permission denied: '" + request.method +
                                         "' changes tierd; uid " + std::to_string(peer.uid) +
                                         " is neither root nor in group '" + kControlGroup + "'")));
    return;
  }
  if (request.params.is_null()) request.params = boost::json::object{};
  // A handler that throws before handing its work off (bad params, busy)
  // answers with that error; nothing escapes into the loop.
  auto once = std::make_shared<bool>(false);
  Done reply_once = [done = std::move(done), once](boost::json::value result,
                                                   std::exception_ptr error) {
    if (*once) return;
    *once = true;
    done(std::move(result), error);
  };
  try {
    it->second.handler(request.params, peer, reply_once);
  } catch (...) {
    reply_once(nullptr, std::current_exception());
  }
}

}  // namespace tierd
