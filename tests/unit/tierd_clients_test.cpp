// Clients cannot exhaust tierd's file descriptors: the real tierd under
// RLIMIT_NOFILE 64, flooded with idle connections, keeps answering a new
// client's `status`, holds at most its client limit of connections, counts
// the idle clients it displaced, and never runs out of descriptors.
#include <boost/json.hpp>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "tierd_harness.hpp"

namespace tier::test {
namespace {

namespace json = boost::json;

std::size_t open_fds(pid_t pid) {
  std::size_t count = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    ++count;
  }
  return count;
}

std::uint64_t number(const json::object& doc, const char* key) {
  return doc.at(key).to_number<std::uint64_t>();
}

TEST(TierdClients, IdleClientsBeyondTheLimitAreDisplacedAndStatusIsStillAnswered) {
  TempDir dir("tierd-clients");
  TierdInstance tierd(dir.path());
  tierd.run_under({"prlimit", "--nofile=64:64", "--"});
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  json::object clients = tierd.result("status").at("clients").as_object();
  EXPECT_EQ(number(clients, "fd_limit"), 64u);
  EXPECT_EQ(number(clients, "max_connections"), 32u);

  // 200 idle connections: more than the client limit, and more than the
  // descriptors tierd has at all.
  std::vector<std::unique_ptr<ControlClient>> idle;
  for (int i = 0; i < 200; ++i) {
    idle.push_back(std::make_unique<ControlClient>(tierd.socket()));
    ASSERT_TRUE(idle.back()->connected()) << "connection " << i << " refused by the kernel";
  }
  // A new client is queued behind all of them; each admission beyond the
  // limit displaces the idlest, so it is answered.
  const json::object reply = tierd.call("status");
  ASSERT_TRUE(reply.contains("ok") && reply.at("ok").as_bool()) << json::serialize(reply);
  clients = reply.at("result").at("clients").as_object();
  EXPECT_LE(number(clients, "connections"), 32u);
  EXPECT_GE(number(clients, "displaced"), 200u + 1 - 32);
  EXPECT_EQ(number(clients, "refused"), 0u);
  EXPECT_EQ(number(clients, "accept_errors"), 0u);
  EXPECT_FALSE(tierd.exited());
  EXPECT_LE(open_fds(tierd.pid()), 64u);

  // The displaced clients were closed by tierd: they read end-of-file.
  EXPECT_EQ(idle.front()->exchange(R"({"method":"status"})"), "");
  idle.clear();
  EXPECT_TRUE(eventually(
      [&] {
        json::object now = tierd.result("status");
        return !now.empty() && number(now.at("clients").as_object(), "connections") == 1;
      },
      std::chrono::seconds(30)))
      << "connections not back to 1 after every idle client closed";
  EXPECT_EQ(tierd.stop().exit_code, 0) << tierd.log_so_far();
}

}  // namespace
}  // namespace tier::test
