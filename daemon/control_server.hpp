// The control socket: accepts tierctl connections on a Unix stream socket and
// answers JSON requests, one per line, in order (tier/protocol/control_protocol.hpp,
// docs/api.md). Runs on the daemon's Asio loop. A bad request gets an error
// reply and never disturbs the daemon; a request to a `change` method from a
// peer that is neither root nor in group `tier` (SO_PEERCRED) is refused with
// code `permission` before its handler runs.
#pragma once

#include <boost/asio.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "peer_access.hpp"

namespace tierd {

class ControlServer {
 public:
  enum class Access { read, change };
  /// Answers on the loop thread; throws tier::control::Error for an error reply.
  using Handler = std::function<boost::json::value(const boost::json::value& params, const Peer&)>;
  /// Receives the reply later (e.g. from work done on another thread, posted
  /// back to the loop): `done` takes the result or an exception.
  using Done = std::function<void(boost::json::value result, std::exception_ptr error)>;
  using AsyncHandler =
      std::function<void(const boost::json::value& params, const Peer&, Done done)>;

  /// Binds `path` (replacing a stale socket file, creating its directory).
  ControlServer(boost::asio::io_context& io, std::string path);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  void add_method(const std::string& name, Access access, Handler handler);
  void add_async_method(const std::string& name, Access access, AsyncHandler handler);
  void start();
  void stop();
  const std::string& path() const { return path_; }
  /// Connections open now (a leak shows here and in /proc/self/fd).
  std::size_t connections() const { return *connections_; }

 private:
  struct Session;
  struct Method {
    Access access;
    AsyncHandler handler;
  };
  void accept_next();
  void read_next(std::shared_ptr<Session> session);
  void dispatch(const std::string& line, const Peer& peer, Done done) const;

  std::string path_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::map<std::string, Method> methods_;
  // Shared with sessions, which may outlive a stopped server by one callback.
  std::shared_ptr<std::size_t> connections_ = std::make_shared<std::size_t>(0);
};

}  // namespace tierd
