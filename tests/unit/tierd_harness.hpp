// A real tierd for tests: private socket, state file and config in a temp
// directory, metrics off unless asked, started and stopped like a service
// manager would (SIGTERM, or SIGKILL for crash tests). Requests go over the
// real control socket as raw JSON lines.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace tier::test {

/// A connected control-socket client; one request, one reply line.
class ControlClient {
 public:
  explicit ControlClient(const fs::path& socket_path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~ControlClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  ControlClient(const ControlClient&) = delete;
  ControlClient& operator=(const ControlClient&) = delete;
  bool connected() const { return fd_ >= 0; }

  /// Sends one line (a newline is added) and returns the reply line, or ""
  /// when the connection failed or closed.
  std::string exchange(const std::string& line) {
    if (fd_ < 0) return "";
    const std::string bytes = line + "\n";
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return "";
      sent += static_cast<std::size_t>(n);
    }
    while (pending_.find('\n') == std::string::npos) {
      char buffer[65536];
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return "";
      pending_.append(buffer, static_cast<std::size_t>(n));
    }
    std::string reply = pending_.substr(0, pending_.find('\n'));
    pending_.erase(0, reply.size() + 1);
    return reply;
  }

  /// A request object → the parsed reply object (empty object on failure).
  boost::json::object call(const std::string& method,
                           const boost::json::object& params = boost::json::object{}) {
    boost::json::object request{{"version", 1}, {"method", method}, {"params", params}};
    std::string reply = exchange(boost::json::serialize(request));
    boost::system::error_code ec;
    boost::json::value value = boost::json::parse(reply, ec);
    if (ec || !value.is_object()) return {};
    return value.as_object();
  }

 private:
  int fd_ = -1;
  std::string pending_;
};

class TierdInstance {
 public:
  /// `config` is the TOML text written to tierd.toml (empty: embedded default).
  explicit TierdInstance(const fs::path& dir, const std::string& config = "",
                         std::vector<std::string> extra = {})
      : dir_(dir), socket_(dir / "tierd.sock"), state_(dir / "state.json") {
    if (!config.empty()) write_text_file(dir / "tierd.toml", config);
    argv_ = {std::string(TIER_BIN_DIR) + "/tierd",
             "--foreground",
             "--socket",
             socket_.string(),
             "--state",
             state_.string()};
    if (!config.empty()) {
      argv_.push_back("--config");
      argv_.push_back((dir / "tierd.toml").string());
    }
    bool metrics_given = false;
    for (const std::string& arg : extra) metrics_given |= arg == "--metrics";
    if (!metrics_given) extra.insert(extra.begin(), {"--metrics", "off"});
    argv_.insert(argv_.end(), extra.begin(), extra.end());
  }

  /// Runs tierd under a wrapper that execs it (e.g. `prlimit --nofile=64:64
  /// --`), so pid() is still tierd's; call before start().
  void run_under(const std::vector<std::string>& wrapper) {
    argv_.insert(argv_.begin(), wrapper.begin(), wrapper.end());
  }

  /// Starts tierd and waits (10 s) until its socket answers `status`.
  bool start() {
    process_.emplace(argv_);
    for (int i = 0; i < 400; ++i) {
      if (fs::exists(socket_)) {
        ControlClient client(socket_);
        if (client.connected() && client.call("status").contains("ok")) return true;
      }
      if (exited()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  }
  /// SIGTERM and wait: the graceful stop.
  CommandResult stop() {
    process_->signal(SIGTERM);
    return process_->wait();
  }
  /// SIGKILL: a crash (nothing restored, socket file left behind).
  CommandResult kill9() {
    process_->signal(SIGKILL);
    return process_->wait();
  }
  /// True once the process has ended (it stays a zombie until stop()/kill9()).
  bool exited() const {
    if (!process_) return false;
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(process_->pid()), &info,
                    WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid != 0;
  }
  pid_t pid() const { return process_->pid(); }
  std::string log_so_far() const { return process_ ? process_->err_so_far() : ""; }

  boost::json::object call(const std::string& method,
                           const boost::json::object& params = boost::json::object{}) const {
    ControlClient client(socket_);
    return client.call(method, params);
  }
  /// The `result` of a successful call; an empty object otherwise.
  boost::json::object result(const std::string& method,
                             const boost::json::object& params = boost::json::object{}) const {
    boost::json::object reply = call(method, params);
    if (reply.contains("ok") && reply.at("ok").as_bool() && reply.at("result").is_object()) {
      return reply.at("result").as_object();
    }
    return {};
  }

  const fs::path& socket() const { return socket_; }
  const fs::path& state() const { return state_; }
  const fs::path& dir() const { return dir_; }
  Process& process() { return *process_; }

 private:
  fs::path dir_, socket_, state_;
  std::vector<std::string> argv_;
  std::optional<Process> process_;
};

/// Polls `condition` every 50 ms for up to `timeout`.
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

}  // namespace tier::test
