#include "control_server.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
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
  bool answering = false;  // a request read, its reply not yet written
  std::chrono::steady_clock::time_point last_active = std::chrono::steady_clock::now();
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

std::uint64_t raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  const rlim_t wanted = std::min<rlim_t>(limit.rlim_max, 65536);
  if (limit.rlim_cur < wanted) {
    rlimit raised = limit;
    raised.rlim_cur = wanted;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur;
}

std::size_t client_limit_for(std::uint64_t fd_limit) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(fd_limit / 2, 1, 1024));
}

ControlServer::ControlServer(asio::io_context& io, std::string path)
    : path_(std::move(path)), acceptor_(io), accept_retry_(io) {
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
  accept_retry_.cancel();
  std::error_code fs_ec;
  std::filesystem::remove(path_, fs_ec);
}

void ControlServer::set_max_connections(std::size_t limit) {
  max_connections_ = std::max<std::size_t>(limit, 1);
}

void ControlServer::accept_next() {
  acceptor_.async_accept([this](boost::system::error_code ec, stream::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (!ec) {
      admit(std::move(socket));
      accept_next();
      return;
    }
    // EMFILE and the like: the connection stays queued, so accepting again
    // at once would fail again at once. An idle client gives up its
    // descriptor; the next attempt comes after a pause either way.
    ++counts_.accept_errors;
    if (displace_idlest()) ++counts_.displaced;
    accept_retry_.expires_after(std::chrono::milliseconds(100));
    accept_retry_.async_wait([this](boost::system::error_code wait_error) {
      if (!wait_error && acceptor_.is_open()) accept_next();
    });
  });
}

void ControlServer::admit(stream::socket socket) {
  std::erase_if(sessions_, [](const std::weak_ptr<Session>& s) { return s.expired(); });
  if (*connections_ >= max_connections_) {
    if (displace_idlest()) {
      ++counts_.displaced;
    } else {
      ++counts_.refused;
      auto text = std::make_shared<std::string>(
          control::encode_error("too many clients: " + std::to_string(*connections_) +
                                    " connections, every one mid-request; try again",
                                control::ErrorCode::conflict));
      auto refused = std::make_shared<stream::socket>(std::move(socket));
      asio::async_write(*refused, asio::buffer(*text),
                        [refused, text](boost::system::error_code, std::size_t) {});
      return;
    }
  }
  Peer peer = peer_of(socket);
  auto session = std::make_shared<Session>(std::move(socket), peer, connections_);
  sessions_.push_back(session);
  read_next(session);
}

// Closes the session idle longest (waiting for a request); false if every
// session is answering one. Its pending read ends with operation_aborted.
bool ControlServer::displace_idlest() {
  std::shared_ptr<Session> idlest;
  for (const auto& weak : sessions_) {
    auto session = weak.lock();
    if (!session || session->answering || !session->socket.is_open()) continue;
    if (!idlest || session->last_active < idlest->last_active) idlest = session;
  }
  if (!idlest) return false;
  boost::system::error_code ec;
  idlest->socket.close(ec);
  return true;
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
        if (ec) return;  // peer closed or went away, or displaced: nothing to answer
        session->answering = true;
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
                         session->answering = false;
                         session->last_active = std::chrono::steady_clock::now();
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
