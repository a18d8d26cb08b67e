// One HTTP/1.0 GET over a plain IPv4 socket, for tests that scrape the
// metrics endpoint (no curl needed on the machine).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tier::test {

// The parts of an HTTP response the tests look at.
struct HttpResponse {
  std::string status_line;
  std::string body;
};

// HTTP/1.0: the server closes when done. Throws when it cannot connect.
inline HttpResponse http_get(const std::string& host, std::uint16_t port, const std::string& path) {
  const std::string where = host + ":" + std::to_string(port);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket: " + std::string(std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, host.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("connect " + where + ": " + why);
  }
  const std::string request =
      "GET " + path + " HTTP/1.0\r\nHost: " + where + "\r\nConnection: close\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string raw;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    raw.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  HttpResponse response;
  response.status_line = raw.substr(0, raw.find("\r\n"));
  const auto body = raw.find("\r\n\r\n");
  if (body != std::string::npos) response.body = raw.substr(body + 4);
  return response;
}

}  // namespace tier::test
