// End-to-end: a real tierd on a private socket, real tierctl and raw clients.
// Proves the control socket answers topology/status, survives bad requests,
// refuses a second daemon on the same socket, and stops cleanly on SIGTERM.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <boost/json.hpp>
#include <chrono>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace tier::test {
namespace {

const std::string kBin = TIER_BIN_DIR;

// Sends raw bytes to a Unix socket and returns everything up to the first newline.
std::string raw_exchange(const fs::path& socket_path, const std::string& bytes) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "connect failed";
  }
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buffer[4096];
  while (reply.find('\n') == std::string::npos) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return reply.substr(0, reply.find('\n'));
}

class DaemonSocket : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = dir_.path() / "tierd.sock";
    daemon_.emplace(std::vector<std::string>{
        kBin + "/tierd", "--foreground", "--socket", socket_.string(), "--state",
        (dir_.path() / "state.json").string(), "--metrics", "off"});
    for (int i = 0; i < 200 && !fs::exists(socket_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    ASSERT_TRUE(fs::exists(socket_)) << "tierd did not create " << socket_;
  }
  int stop_daemon() {
    daemon_->signal(SIGTERM);
    return daemon_->wait().exit_code;
  }

  TempDir dir_{"tier-daemon"};
  fs::path socket_;
  std::optional<Process> daemon_;  // killed and reaped by its destructor
};

TEST_F(DaemonSocket, ServesTheSameTopologyTierctlReadsLocally) {
  auto remote =
      run_command({kBin + "/tierctl", "--socket", socket_.string(), "topo", "--daemon", "--json"});
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  auto local = run_command({kBin + "/tierctl", "topo", "--json"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  auto r = boost::json::parse(remote.out).as_object();
  auto l = boost::json::parse(local.out).as_object();
  EXPECT_EQ(r.at("schema"), "tier.topology/v1");
  // Free memory moves between the two reads; everything structural must match.
  for (const char* key : {"distances", "perf", "memory_tiers", "tier_source", "devices"}) {
    EXPECT_EQ(r.at(key), l.at(key)) << key;
  }
  ASSERT_EQ(r.at("nodes").as_array().size(), l.at("nodes").as_array().size());
  EXPECT_EQ(r.at("nodes").as_array()[0].at("cpulist"), l.at("nodes").as_array()[0].at("cpulist"));
}

TEST_F(DaemonSocket, BadRequestsGetErrorsAndTheDaemonKeepsServing) {
  EXPECT_EQ(
      raw_exchange(socket_, "garbage\n"),
      R"({"version":1,"ok":false,"error":"malformed JSON: syntax error","code":"bad_request"})");
  EXPECT_EQ(raw_exchange(socket_, R"({"version":1,"method":"nope"})"
                                  "\n"),
            R"({"version":1,"ok":false,"error":"unknown method 'nope'","code":"unknown_method"})");
  EXPECT_EQ(raw_exchange(socket_, std::string(2 << 20, 'x')),
            R"({"version":1,"ok":false,"error":"request larger than 1 MiB","code":"too_large"})");
  std::string status = raw_exchange(socket_, R"({"version":1,"method":"status"})"
                                             "\n");
  auto reply = boost::json::parse(status).as_object();
  EXPECT_EQ(reply.at("ok"), true);
  EXPECT_EQ(reply.at("result").at("state"), "running");
}

TEST_F(DaemonSocket, RefusesASecondDaemonOnALiveSocket) {
  auto second = run_command({kBin + "/tierd", "--socket", socket_.string(), "--state",
                             (dir_.path() / "second.json").string(), "--metrics", "off"});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("another tierd is serving"), std::string::npos) << second.err;
}

TEST_F(DaemonSocket, StopsOnSigtermAndRemovesItsSocket) {
  EXPECT_EQ(stop_daemon(), 0);
  EXPECT_FALSE(fs::exists(socket_));
  auto gone = run_command({kBin + "/tierctl", "--socket", socket_.string(), "topo", "--daemon"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("cannot reach tierd"), std::string::npos) << gone.err;
}

}  // namespace
}  // namespace tier::test
