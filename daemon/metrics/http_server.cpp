#include "metrics/http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <civetweb.h>
#include <prometheus/exposer.h>

#include <cerrno>
#include <cstring>

namespace tierd {

namespace {

// civetweb only says "possible problem binding to port"; binding the same
// address once more ourselves recovers the errno a user can act on
// (EADDRINUSE, EADDRNOTAVAIL, EACCES). Diagnostic only, after civetweb failed.
std::string why_bind_fails(const ListenAddress& address) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (address.ipv6()) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(address.port);
    inet_pton(AF_INET6, address.host.c_str(), &in6->sin6_addr);
    length = sizeof *in6;
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&storage);
    in4->sin_family = AF_INET;
    in4->sin_port = htons(address.port);
    inet_pton(AF_INET, address.host.c_str(), &in4->sin_addr);
    length = sizeof *in4;
  }
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::strerror(errno);
  std::string why;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&storage), length) != 0 ||
      ::listen(fd, 1) != 0) {
    why = std::strerror(errno);
  }
  ::close(fd);
  return why;
}

}  // namespace

MetricsHttpServer::MetricsHttpServer(const ListenAddress& address,
                                     const std::shared_ptr<prometheus::Collectable>& registry)
    : address_(address) {
  // Debian 12's civetweb is built without IPv6 (mg_check_feature(8) == 0);
  // without this check the user would only hear "problem binding to port".
  constexpr unsigned kCivetwebIpv6 = 8;
  if (address.ipv6() && mg_check_feature(kCivetwebIpv6) == 0) {
    throw MetricsError("metrics: cannot listen on " + address.to_string() +
                       ": this build's HTTP server (civetweb) has no IPv6 support; use an IPv4 "
                       "address");
  }
  try {
    // Two threads: a slow scraper cannot hold up a second one (two
    // Prometheus servers scraping one host is common).
    exposer_ = std::make_unique<prometheus::Exposer>(address.to_string(), 2);
  } catch (const std::exception& e) {
    std::string why = why_bind_fails(address);
    if (why.empty()) why = e.what();  // the address binds now: say what civetweb said
    throw MetricsError("metrics: cannot listen on " + address.to_string() + ": " + why);
  }
  exposer_->RegisterCollectable(registry);
  const std::vector<int> ports = exposer_->GetListeningPorts();
  if (!ports.empty()) address_.port = static_cast<std::uint16_t>(ports.front());
}

MetricsHttpServer::~MetricsHttpServer() = default;

}  // namespace tierd
