// The control socket: accepts tierctl connections on a Unix stream socket and
// answers one JSON request per line (tier/control_protocol.hpp). Runs on the
// daemon's Asio loop; a bad request gets an error reply and never disturbs
// the daemon.
#pragma once

#include <boost/asio.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <map>
#include <string>

namespace tierd {

class ControlServer {
 public:
  using Handler = std::function<boost::json::value(const boost::json::value& params)>;

  /// Binds `path` (replacing a stale socket file, creating its directory).
  ControlServer(boost::asio::io_context& io, std::string path);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  void add_method(const std::string& name, Handler handler);
  void start();
  void stop();
  const std::string& path() const { return path_; }

 private:
  void accept_next();
  void serve(boost::asio::local::stream_protocol::socket socket);
  std::string dispatch(const std::string& line) const;

  std::string path_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::map<std::string, Handler> methods_;
};

}  // namespace tierd
