// One client connection to the server: a unix or TCP stream socket that
// sends commands and reads RESP replies, with a deadline on every wait so a
// stalled server is reported instead of hanging the program.
//
// Every failure throws KvError whose message starts with the server's
// address ("unix:/tmp/kv/s: ..." or "127.0.0.1:6379: ...") and says what
// happened at the socket: "connection closed by the server",
// "recv: ECONNRESET (Connection reset by peer)", "no reply within 10s". The
// caller adds what it was doing (client.hpp). SIGPIPE is never raised
// (MSG_NOSIGNAL): a write to a vanished server is an error like any other.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "resp.hpp"

namespace tier_kv {

class KvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where the server listens: a unix socket path, or host and port.
struct Endpoint {
  std::string socket_path;  // non-empty: unix socket
  std::string host;
  std::uint16_t port = 6379;
  /// "unix:/path" or "host:port", for messages.
  std::string name() const;
};

class Connection {
 public:
  /// Connects (TCP: TCP_NODELAY, one request is one small packet); every
  /// send and receive waits at most `timeout_s`.
  Connection(const Endpoint& where, double timeout_s);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Sends all of `bytes`.
  void send(std::string_view bytes);
  /// Reads until one whole reply has arrived and returns it in `out`.
  void receive(Reply& out);
  /// send + receive, and throws KvError on an error reply ("server answered
  /// error 'ERR ...'"): for the commands whose answer is not data.
  void call(std::string_view command, Reply& out);

  const std::string& address() const { return address_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_errno(const char* call) const;

  int fd_ = -1;
  std::string address_;
  double timeout_s_;
  RespParser parser_;
};

/// used_memory from the server's INFO memory (bytes); a failure reads
/// "INFO memory: <address>: ...".
std::uint64_t used_memory(Connection& c);

}  // namespace tier_kv
