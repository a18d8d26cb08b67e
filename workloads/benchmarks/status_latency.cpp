// tierd_status_bench: `status` round-trip latency of a running tierd with 0
// and then N registered workloads, side by side in one run (docs/benchmarks.md).
// The workloads are this program's own children (sleeping, killed with it).
//
//   tierd_status_bench --socket PATH [--workloads 1000] [--requests 5000]
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

class Connection {
 public:
  explicit Connection(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      throw std::runtime_error("cannot connect to " + path + ": " + std::strerror(errno));
    }
  }
  ~Connection() { ::close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  std::string call(const std::string& request) {
    const std::string line = request + "\n";
    if (::send(fd_, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
      throw std::runtime_error("send failed");
    }
    std::string reply;
    while (reply.empty() || reply.back() != '\n') {
      char buffer[65536];
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) throw std::runtime_error("tierd closed the connection");
      reply.append(buffer, static_cast<std::size_t>(n));
    }
    return reply;
  }

 private:
  int fd_ = -1;
};

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
};

Percentiles measure(Connection& connection, int requests) {
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(requests));
  for (int i = 0; i < requests; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::string reply = connection.call(R"({"version":1,"method":"status"})");
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    if (reply.find("\"ok\":true") == std::string::npos) throw std::runtime_error(reply);
  }
  std::sort(ms.begin(), ms.end());
  auto at = [&ms](double q) { return ms[static_cast<std::size_t>(q * (ms.size() - 1))]; };
  return {at(0.50), at(0.90), at(0.99), ms.back()};
}

}  // namespace

int main(int argc, char** argv) {
  std::string socket_path = "/run/tier/tierd.sock";
  int workloads = 1000, requests = 5000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--socket")
      socket_path = argv[i + 1];
    else if (flag == "--workloads")
      workloads = std::atoi(argv[i + 1]);
    else if (flag == "--requests")
      requests = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s --socket PATH [--workloads N] [--requests N]\n", argv[0]);
      return 2;
    }
  }
  std::vector<pid_t> children;
  try {
    Connection connection(socket_path);
    const Percentiles empty = measure(connection, requests);
    for (int i = 0; i < workloads; ++i) {
      pid_t pid = ::fork();
      if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::pause();
        ::_exit(0);
      }
      children.push_back(pid);
      std::string reply = connection.call(
          R"({"version":1,"method":"workloads.register","params":{"pid":)" + std::to_string(pid) +
          R"(,"class":")" + (i % 2 ? "online" : "offline") + "\"}}");
      if (reply.find("\"ok\":true") == std::string::npos) throw std::runtime_error(reply);
    }
    const Percentiles loaded = measure(connection, requests);
    std::printf("status round trip, %d requests each on one connection (ms)\n", requests);
    std::printf("%-14s %8s %8s %8s %8s\n", "workloads", "p50", "p90", "p99", "max");
    std::printf("%-14d %8.3f %8.3f %8.3f %8.3f\n", 0, empty.p50, empty.p90, empty.p99, empty.max);
    std::printf("%-14d %8.3f %8.3f %8.3f %8.3f\n", workloads, loaded.p50, loaded.p90, loaded.p99,
                loaded.max);
    std::printf("ratio p99 %d/0 workloads: %.2fx\n", workloads, loaded.p99 / empty.p99);
    for (pid_t pid : children) {
      connection.call(R"({"version":1,"method":"workloads.unregister","params":{"id":)" +
                      std::to_string(pid) + "}}");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tierd_status_bench: %s\n", e.what());
    for (pid_t pid : children) ::kill(pid, SIGKILL);
    return 1;
  }
  for (pid_t pid : children) ::kill(pid, SIGKILL);
  for (pid_t pid : children) ::waitpid(pid, nullptr, 0);
  return 0;
}
