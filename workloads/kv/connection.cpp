#include "connection.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tier/posix/error.hpp"
#include "tier/values/values.hpp"

namespace tier_kv {
namespace {

timeval to_timeval(double s) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(s);
  tv.tv_usec = static_cast<suseconds_t>((s - static_cast<double>(tv.tv_sec)) * 1e6);
  return tv;
}

// A socket with both deadlines set; -1 (errno set) on failure.
int timed_socket(int family, double timeout_s) {
  const int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const timeval tv = to_timeval(timeout_s);
  // SO_SNDTIMEO also bounds connect(2) on Linux.
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
    const int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace

std::string Endpoint::name() const {
  if (!socket_path.empty()) return "unix:" + socket_path;
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

Connection::Connection(const Endpoint& where, double timeout_s)
    : address_(where.name()), timeout_s_(timeout_s) {
  if (!where.socket_path.empty()) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (where.socket_path.size() >= sizeof sa.sun_path) {
      fail("connect: the socket path is longer than " + std::to_string(sizeof sa.sun_path - 1) +
           " bytes");
    }
    std::memcpy(sa.sun_path, where.socket_path.c_str(), where.socket_path.size() + 1);
    fd_ = timed_socket(AF_UNIX, timeout_s);
    if (fd_ < 0) fail_errno("socket");
    if (connect(fd_, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) fail_errno("connect");
    return;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (const int rc = getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    fail(std::string("cannot resolve the host: ") + gai_strerror(rc));
  }
  int error = 0;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd_ = timed_socket(a->ai_family, timeout_s);
    if (fd_ >= 0 && connect(fd_, a->ai_addr, a->ai_addrlen) == 0) break;
    error = errno;
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  freeaddrinfo(found);
  if (fd_ < 0) {
    errno = error;
    fail_errno("connect");
  }
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Connection::~Connection() {
  if (fd_ >= 0) close(fd_);
}

void Connection::fail(const std::string& what) const {
  throw KvError(address_ + ": " + what);
}

void Connection::fail_errno(const char* call) const {
  const int e = errno;
  if (e == EAGAIN || e == EWOULDBLOCK || e == EINPROGRESS) {
    fail(std::string(call) + ": no answer within " + tier::values::plain(timeout_s_) + "s");
  }
  fail(std::string(call) + ": " + tier::posix::errno_text(e));
}

void Connection::send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno("send");
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Connection::receive(Reply& out) {
  char chunk[16384];
  try {
    while (!parser_.next(out)) {
      const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n == 0) fail("connection closed by the server");
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_errno("recv");
      }
      parser_.feed(chunk, static_cast<std::size_t>(n));
    }
  } catch (const RespError& e) {
    fail(e.what());
  }
}

void Connection::call(std::string_view command, Reply& out) {
  send(command);
  receive(out);
  if (out.type == Reply::Type::error) fail("server answered " + describe(out));
}

std::uint64_t used_memory(Connection& c) {
  std::string command;
  append_command(command, {"INFO", "memory"});
  Reply r;
  try {
    c.call(command, r);
  } catch (const KvError& e) {
    throw KvError(std::string("INFO memory: ") + e.what());
  }
  constexpr std::string_view kField = "used_memory:";
  const std::size_t at = r.type == Reply::Type::bulk ? r.text.find(kField) : std::string::npos;
  if (at == std::string::npos || (at > 0 && r.text[at - 1] != '\n')) {
    throw KvError("INFO memory: " + c.address() + ": no used_memory in the answer (" + describe(r) +
                  ")");
  }
  return std::strtoull(r.text.c_str() + at + kField.size(), nullptr, 10);
}

}  // namespace tier_kv
