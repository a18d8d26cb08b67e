// tierd's CPU pools end to end on this machine's kernel: the real daemon with
// `[pools] enabled = true`, real cpusets (cgroup v1 here), real child
// processes. Outcomes are read where the kernel states them: the children's
// Cpus_allowed_list in /proc/PID/status and the cpuset directories.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>

#include "posix/mounts.hpp"
#include "tier/cpu/cpu_inventory.hpp"
#include "tier/cpu/cpulist.hpp"
#include "tierd_harness.hpp"

namespace tier::test {
namespace {

namespace json = boost::json;

std::string cpus_allowed(pid_t pid) {
  return proc_status_field("/proc/" + std::to_string(pid) + "/status", "Cpus_allowed_list");
}

std::string pool_config(const std::string& parent) {
  return "[daemon]\nepoch_ms = 200\n[policy]\ntick_ms = 200\n[pools]\nenabled = true\nparent = \"" +
         parent + "\"\n";
}

// The v1 cpuset hierarchy's mount point (libtier's mount table reader),
// or "" when there is none: the test needs it only to check clean-up.
std::string v1_cpuset_mount() {
  for (const auto& mount : tier::posix::read_mounts(SysRoot("/"))) {
    if (mount.fstype == "cgroup" && tier::posix::has_option(mount.options, "cpuset")) {
      return mount.mount_point;
    }
  }
  return "";
}

json::object pool_named(const json::object& pools, const std::string& name) {
  for (const json::value& pool : pools.at("pools").as_array()) {
    if (pool.at("name").as_string() == name) return pool.as_object();
  }
  return {};
}

class TierdPools : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "cpusets need root";
    if (tier::cpu::load_cpu_inventory().all().size() < 2) GTEST_SKIP() << "needs 2 CPUs";
  }
  TempDir dir_{"tierd-pools"};
  const std::string parent_ = "tier-test-pools-" + std::to_string(::getpid());
};

TEST_F(TierdPools, ExclusiveClaimLeavesTheSharedPoolRefusesASecondAndGivesItBackOnExit) {
  const std::string all = tier::cpu::load_cpu_inventory().all().to_string();
  TierdInstance tierd(dir_.path(), pool_config(parent_));
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();

  Process shared({"sleep", "1000"});
  Process exclusive({"sleep", "1000"});
  Process second({"sleep", "1000"});
  ASSERT_TRUE(tierd.result("workloads.register", {{"pid", shared.pid()}, {"pool", "shared"}})
                  .contains("workload"))
      << tierd.log_so_far();
  EXPECT_EQ(cpus_allowed(shared.pid()), all);

  // The reply comes after the move: the process is confined when it returns.
  json::object claimed =
      tierd.result("workloads.register",
                   {{"pid", exclusive.pid()}, {"class", "online"}, {"pool", "exclusive:1"}});
  ASSERT_TRUE(claimed.contains("workload")) << tierd.log_so_far();
  const std::string own = cpus_allowed(exclusive.pid());
  auto own_cpus = CpuList::parse(own);
  ASSERT_TRUE(own_cpus.has_value()) << own;
  ASSERT_EQ(own_cpus->size(), 1u) << own;
  const std::string rest = cpus_allowed(shared.pid());
  auto rest_cpus = CpuList::parse(rest);
  ASSERT_TRUE(rest_cpus.has_value()) << rest;
  EXPECT_FALSE(rest_cpus->contains(own_cpus->ids()[0]))
      << "shared member still allowed on exclusive CPU " << own;
  EXPECT_EQ(rest_cpus->size() + 1, CpuList::parse(all)->size());

  json::object pools = tierd.result("pools.list");
  ASSERT_TRUE(pools.contains("pools")) << json::serialize(pools);
  EXPECT_EQ(pool_named(pools, "shared").at("cpus").as_string(), rest);

  // Two CPUs: a second exclusive:1 would leave the shared pool empty.
  json::object refused = tierd.call(
      "workloads.register", {{"pid", second.pid()}, {"class", "online"}, {"pool", "exclusive:1"}});
  ASSERT_TRUE(refused.contains("ok")) << json::serialize(refused);
  EXPECT_FALSE(refused.at("ok").as_bool());
  EXPECT_EQ(refused.at("code").as_string(), "conflict");
  const std::string message(refused.at("error").as_string());
  EXPECT_NE(message.find("exclusive:1"), std::string::npos) << message;
  EXPECT_NE(message.find("shared"), std::string::npos) << message;
  EXPECT_EQ(cpus_allowed(second.pid()), all) << "a refused workload must not be moved";

  // The holder exits: within a few epochs the shared pool has every CPU again.
  exclusive.signal(SIGKILL);
  exclusive.wait();
  EXPECT_TRUE(eventually([&] { return cpus_allowed(shared.pid()) == all; }))
      << "shared member still on " << cpus_allowed(shared.pid());

  const std::string mount = v1_cpuset_mount();
  tierd.stop();
  if (!mount.empty()) {
    EXPECT_FALSE(fs::exists(fs::path(mount) / parent_)) << "tierd left its cpuset group behind";
  }
}

TEST_F(TierdPools, BadPoolIsABadRequestAndPoolsOffSaysSo) {
  TierdInstance tierd(dir_.path(), pool_config(parent_));
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Process sleeper({"sleep", "1000"});
  json::object reply =
      tierd.call("workloads.register", {{"pid", sleeper.pid()}, {"pool", "exclusive:0"}});
  ASSERT_TRUE(reply.contains("code")) << json::serialize(reply);
  EXPECT_EQ(reply.at("code").as_string(), "bad_request");
  EXPECT_EQ(reply.at("error").as_string(), "\"pool\": pool \"exclusive:0\": K must be at least 1");
  tierd.stop();

  TempDir off_dir{"tierd-pools-off"};
  TierdInstance off(off_dir.path(), "[daemon]\nepoch_ms = 200\n");
  ASSERT_TRUE(off.start()) << off.log_so_far();
  json::object pools = off.result("pools.list");
  ASSERT_TRUE(pools.contains("enabled")) << json::serialize(pools);
  EXPECT_FALSE(pools.at("enabled").as_bool());
  off.stop();
}

}  // namespace
}  // namespace tier::test
