// The control socket: accepts tierctl connections on a Unix stream socket and
// answers JSON requests, one per line, in order (tier/protocol/control_protocol.hpp,
// docs/api.md). Runs on the daemon's Asio loop. A bad request gets an error
// reply and never disturbs the daemon; a request to a `change` method from a
// peer that is neither root nor in group `tier` (SO_PEERCRED) is refused with
// code `permission` before its handler runs.
//
// Clients cannot starve tierd of file descriptors: at most
// max_connections() are open at once (set from RLIMIT_NOFILE, see
// client_limit_for()). A connection beyond it displaces the client idle
// longest (one waiting for its next request, none mid-reply), so a new
// `tierctl status` is answered even while idle clients hold every slot; if
// every client is mid-request, the newcomer gets a `conflict` error and is
// closed. An accept that fails (EMFILE, ENFILE) is counted and retried
// 100 ms later instead of spinning the loop.
#pragma once

#include <boost/asio.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

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

  /// At most `limit` (>= 1) connections open at once; 256 until set.
  void set_max_connections(std::size_t limit);
  std::size_t max_connections() const { return max_connections_; }
  struct ClientCounts {
    std::uint64_t displaced = 0;      // idle clients closed to admit a newer one
    std::uint64_t refused = 0;        // newcomers refused: every client mid-request
    std::uint64_t accept_errors = 0;  // accept(2) failures (EMFILE, ENFILE, ...)
  };
  const ClientCounts& client_counts() const { return counts_; }

 private:
  struct Session;
  struct Method {
    Access access;
    AsyncHandler handler;
  };
  void accept_next();
  void admit(boost::asio::local::stream_protocol::socket socket);
  bool displace_idlest();
  void read_next(std::shared_ptr<Session> session);
  void dispatch(const std::string& line, const Peer& peer, Done done) const;

  std::string path_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::map<std::string, Method> methods_;
  // Shared with sessions, which may outlive a stopped server by one callback.
  std::shared_ptr<std::size_t> connections_ = std::make_shared<std::size_t>(0);
  std::vector<std::weak_ptr<Session>> sessions_;  // expired ones pruned at each admission
  std::size_t max_connections_ = 256;
  ClientCounts counts_;
  boost::asio::steady_timer accept_retry_;
};

/// Raises this process's soft RLIMIT_NOFILE to its hard limit (at most
/// 65536): systemd starts services at 1024 soft for select()'s sake, which
/// tierd does not use. Returns the soft limit in force afterwards.
std::uint64_t raise_open_file_limit();

/// The client limit for a file-descriptor limit of `fd_limit`: half of it,
/// the rest left for tierd's own work (/proc reads, heat sources, the state
/// file, metrics), at most 1024.
std::size_t client_limit_for(std::uint64_t fd_limit);

}  // namespace tierd
