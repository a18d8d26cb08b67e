// The workload registry against fixture /proc and cgroup trees (registration
// rules, pid reuse, watched parents, process rules) and against the live
// system (a real child process, a kernel thread, comm and exe rules, the real
// cgroup2 tree when it is writable).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "workloads/procfs.hpp"
#include "workloads/registry.hpp"
#include "workloads_fixture.hpp"

namespace {

using ::testing::HasSubstr;
using tier::test::FakeProcess;
using tier::test::FakeSystem;
using tier::test::proc;
using tier::test::rule;
using tier::test::watch;
using tierd::DroppedWorkload;
using tierd::RegisterRequest;
using tierd::Registry;
using tierd::Workload;
using tierd::WorkloadClass;
using tierd::WorkloadSource;
namespace fs = std::filesystem;

constexpr std::int64_t kNow = 1796000000;

RegisterRequest pid_request(pid_t pid) {
  RegisterRequest request;
  request.pid = pid;
  return request;
}

RegisterRequest cgroup_request(std::string path) {
  RegisterRequest request;
  request.cgroup = std::move(path);
  return request;
}

std::string registration_error(Registry& registry, const RegisterRequest& request) {
  try {
    registry.register_workload(request, kNow);
  } catch (const tierd::RegistrationError& error) {
    return error.what();
  }
  return "(registered)";
}

std::vector<std::string> ids_of(const std::vector<Workload>& workloads) {
  std::vector<std::string> ids;
  for (const auto& w : workloads) ids.push_back(w.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::string> reasons_of(const std::vector<DroppedWorkload>& dropped) {
  std::vector<std::string> reasons;
  for (const auto& d : dropped) reasons.push_back(d.workload.id + ": " + d.reason);
  std::sort(reasons.begin(), reasons.end());
  return reasons;
}

// ---- /proc/PID/stat parsing --------------------------------------------------

TEST(ProcStat, CommWithSpacesAndParenthesesKeepsTheFieldsAfterTheLastParen) {
  FakeProcess p = proc(7).named("a) (b c) d").in_state('R').with_flags(0x40).started(987654);
  auto stat = tierd::detail::parse_proc_stat(FakeSystem::stat_line(p));
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->comm, "a) (b c) d");
  EXPECT_EQ(stat->state, 'R');
  EXPECT_EQ(stat->flags, 0x40u);
  EXPECT_EQ(stat->start_time, 987654u);
  EXPECT_FALSE(stat->kernel_thread());
}

TEST(ProcStat, RejectsTruncatedText) {
  EXPECT_FALSE(tierd::detail::parse_proc_stat(""));
  EXPECT_FALSE(tierd::detail::parse_proc_stat("12 (x) S 1 2 3"));
  EXPECT_FALSE(tierd::detail::parse_proc_stat("12 x S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"));
}

TEST(ProcStat, LiveKthreaddIsAKernelThreadAndWeAreNot) {
  auto self = tierd::detail::read_proc_stat(tier::SysRoot("/"), ::getpid());
  ASSERT_TRUE(self);
  EXPECT_FALSE(self->kernel_thread());
  EXPECT_GT(self->start_time, 0u);
  auto comm = tier::SysRoot("/").read("/proc/2/comm");
  if (comm != "kthreadd") GTEST_SKIP() << "pid 2 is not kthreadd here";
  auto kthreadd = tierd::detail::read_proc_stat(tier::SysRoot("/"), 2);
  ASSERT_TRUE(kthreadd);
  EXPECT_TRUE(kthreadd->kernel_thread());
}

// ---- registration (fixture tree) ----------------------------------------------

TEST(RegistryFixture, RegistersAProcessWithCommAsNameAndItsStartTime) {
  FakeSystem sys;
  sys.add_process(proc(100).named("redis-server").started(4242));
  Registry registry(sys.root());
  RegisterRequest request = pid_request(100);
  request.workload_class = WorkloadClass::online;
  request.priority = 10;
  request.pool = "fast";
  request.quota = tierd::parse_quota("8G");
  const Workload& w = registry.register_workload(request, kNow);
  EXPECT_EQ(w.id, "pid:100");
  EXPECT_EQ(w.name, "redis-server");
  EXPECT_EQ(w.source, WorkloadSource::api);
  EXPECT_EQ(w.pid, 100);
  EXPECT_EQ(w.cgroup, "");
  EXPECT_EQ(w.start_time, 4242u);
  EXPECT_EQ(w.workload_class, WorkloadClass::online);
  EXPECT_EQ(w.priority, 10);
  EXPECT_EQ(w.pool, "fast");
  EXPECT_EQ(w.quota.bytes, std::uint64_t{8} << 30);
  EXPECT_EQ(w.registered_unix_s, kNow);
  ASSERT_NE(registry.find("pid:100"), nullptr);
  EXPECT_EQ(registry.pids_of(w), std::vector<pid_t>{100});
}

TEST(RegistryFixture, AGivenNameWins) {
  FakeSystem sys;
  sys.add_process(proc(100).named("java"));
  Registry registry(sys.root());
  RegisterRequest request = pid_request(100);
  request.name = "orders";
  EXPECT_EQ(registry.register_workload(request, kNow).name, "orders");
}

TEST(RegistryFixture, RefusesBadRequestsSayingWhy) {
  FakeSystem sys;
  sys.add_process(proc(2).named("kthreadd").kernel_thread());
  sys.add_process(proc(300).named("defunct").in_state('Z'));
  sys.add_process(proc(100).named("app"));
  sys.add_process(proc(104).named("app").thread_of(100));
  sys.add_cgroup("/sys/fs/cgroup/app.slice");
  fs::create_directories(sys.host("/sys/fs/cgroup/plain"));
  Registry registry(sys.root());

  EXPECT_EQ(registration_error(registry, RegisterRequest{}), "give exactly one of pid and cgroup");
  RegisterRequest both = pid_request(100);
  both.cgroup = "app.slice";
  EXPECT_EQ(registration_error(registry, both), "give exactly one of pid and cgroup");
  EXPECT_EQ(registration_error(registry, pid_request(99999)), "no process 99999");
  EXPECT_EQ(registration_error(registry, pid_request(0)), "pid must be positive, not 0");
  EXPECT_EQ(registration_error(registry, pid_request(2)), "pid 2 is a kernel thread");
  EXPECT_EQ(registration_error(registry, pid_request(300)), "process 300 has exited");
  EXPECT_EQ(registration_error(registry, pid_request(104)),
            "pid 104 is a thread of process 100; register the process");
  EXPECT_EQ(registration_error(registry, cgroup_request("plain")),
            "/sys/fs/cgroup/plain is not a cgroup directory (no cgroup.procs)");
  EXPECT_EQ(registration_error(registry, cgroup_request("/sys/fs/cgroup/nope")),
            "cgroup /sys/fs/cgroup/nope does not exist");
  EXPECT_TRUE(registry.workloads().empty());

  registry.register_workload(pid_request(100), kNow);
  EXPECT_EQ(registration_error(registry, pid_request(100)), "pid:100 is already registered");
  registry.register_workload(cgroup_request("app.slice"), kNow);
  EXPECT_EQ(registration_error(registry, cgroup_request("/sys/fs/cgroup/app.slice/")),
            "cgroup:/sys/fs/cgroup/app.slice is already registered");
  EXPECT_EQ(registry.workloads().size(), 2u);
}

TEST(RegistryFixture, CgroupRelativeToTheMountNamedByItsBasename) {
  FakeSystem sys;
  sys.add_cgroup("/sys/fs/cgroup/system.slice/db.service", "11\n12\n");
  Registry registry(sys.root());
  const Workload& w = registry.register_workload(cgroup_request("system.slice/db.service"), kNow);
  EXPECT_EQ(w.id, "cgroup:/sys/fs/cgroup/system.slice/db.service");
  EXPECT_EQ(w.cgroup, "/sys/fs/cgroup/system.slice/db.service");
  EXPECT_EQ(w.name, "db.service");
  EXPECT_FALSE(w.pid);
  EXPECT_EQ(registry.pids_of(w), (std::vector<pid_t>{11, 12}));
  sys.remove_cgroup("/sys/fs/cgroup/system.slice/db.service");
  EXPECT_TRUE(registry.pids_of(*registry.find(w.id)).empty());
  auto result = registry.refresh(kNow + 1);
  EXPECT_THAT(reasons_of(result.dropped),
              ::testing::ElementsAre("cgroup:/sys/fs/cgroup/system.slice/db.service: cgroup "
                                     "/sys/fs/cgroup/system.slice/db.service removed"));
}

TEST(RegistryFixture, UnregisterByIdOrByPidDigits) {
  FakeSystem sys;
  sys.add_process(proc(100));
  sys.add_process(proc(101));
  sys.add_cgroup("/sys/fs/cgroup/x");
  Registry registry(sys.root());
  registry.register_workload(pid_request(100), kNow);
  registry.register_workload(pid_request(101), kNow);
  registry.register_workload(cgroup_request("x"), kNow);

  auto removed = registry.unregister("100");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->workload.id, "pid:100");
  EXPECT_EQ(removed->reason, "unregistered");
  EXPECT_FALSE(registry.unregister("100"));
  EXPECT_FALSE(registry.unregister("pid:999"));
  EXPECT_FALSE(registry.unregister("x"));
  EXPECT_EQ(registry.unregister("pid:101")->workload.pid, 101);
  EXPECT_EQ(registry.unregister("cgroup:/sys/fs/cgroup/x")->workload.name, "x");
  EXPECT_TRUE(registry.workloads().empty());
}

TEST(RegistryFixture, RefreshDropsExitedZombieAndReusedPids) {
  FakeSystem sys;
  sys.add_process(proc(100).started(5000));
  sys.add_process(proc(101).started(5000));
  sys.add_process(proc(102).started(5000));
  sys.add_process(proc(103).started(5000));
  Registry registry(sys.root());
  for (pid_t pid : {100, 101, 102, 103}) registry.register_workload(pid_request(pid), kNow);
  EXPECT_TRUE(registry.refresh(kNow).dropped.empty());

  sys.remove_process(100);
  sys.add_process(proc(101).named("other").started(6000));  // pid reused
  sys.add_process(proc(102).in_state('Z').started(5000));   // exited, not yet reaped
  auto result = registry.refresh(kNow + 1);
  EXPECT_TRUE(result.added.empty());
  EXPECT_THAT(reasons_of(result.dropped),
              ::testing::ElementsAre("pid:100: process 100 exited",
                                     "pid:101: pid 101 reused by another process",
                                     "pid:102: process 102 exited"));
  EXPECT_EQ(ids_of(registry.workloads()), std::vector<std::string>{"pid:103"});
}

// Its cost is measured by scripts/bench-tierd.sh (status with 1 000
// workloads), not asserted here: a timed test says more about the machine.
TEST(RegistryFixture, ThousandLiveProcessWorkloadsAllSurviveARefresh) {
  FakeSystem sys;
  Registry registry(sys.root());
  for (pid_t pid = 1000; pid < 2000; ++pid) {
    sys.add_process(proc(pid).started(static_cast<std::uint64_t>(pid)));
    registry.register_workload(pid_request(pid), kNow);
  }
  auto result = registry.refresh(kNow);
  EXPECT_TRUE(result.dropped.empty());
  EXPECT_TRUE(result.added.empty());
  EXPECT_EQ(registry.workloads().size(), 1000u);
}

// ---- watched parent cgroups ---------------------------------------------------

TEST(RegistryFixture, WatchedParentChildrenComeAndGo) {
  FakeSystem sys;
  const std::string parent = "/sys/fs/cgroup/kubepods.slice";
  sys.add_cgroup(parent);
  sys.add_cgroup(parent + "/pod-a", "10\n");
  sys.add_cgroup(parent + "/pod-b");
  sys.add_cgroup(parent + "/pod-a/nested");  // grandchild: not a workload
  fs::create_directories(sys.host(parent + "/not-a-cgroup"));
  Registry registry(sys.root());
  // Relative: under the cgroup mount.
  tierd::CgroupWatch pods = watch("kubepods.slice", WorkloadClass::offline, -5, "batch", "25%");
  registry.configure({pods}, {});

  auto first = registry.refresh(kNow);
  EXPECT_TRUE(first.dropped.empty());
  EXPECT_EQ(ids_of(first.added), (std::vector<std::string>{"cgroup:" + parent + "/pod-a",
                                                           "cgroup:" + parent + "/pod-b"}));
  const Workload* a = registry.find("cgroup:" + parent + "/pod-a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name, "pod-a");
  EXPECT_EQ(a->source, WorkloadSource::cgroup);
  EXPECT_EQ(a->workload_class, WorkloadClass::offline);
  EXPECT_EQ(a->priority, -5);
  EXPECT_EQ(a->pool, "batch");
  EXPECT_EQ(a->quota.percent, 25.0);
  EXPECT_EQ(a->registered_unix_s, kNow);
  EXPECT_EQ(registry.pids_of(*a), std::vector<pid_t>{10});

  auto second = registry.refresh(kNow + 1);
  EXPECT_TRUE(second.added.empty());
  EXPECT_TRUE(second.dropped.empty());

  sys.add_cgroup(parent + "/pod-c");
  sys.remove_cgroup(parent + "/pod-a");
  auto third = registry.refresh(kNow + 2);
  EXPECT_EQ(ids_of(third.added), std::vector<std::string>{"cgroup:" + parent + "/pod-c"});
  EXPECT_THAT(
      reasons_of(third.dropped),
      ::testing::ElementsAre("cgroup:" + parent + "/pod-a: cgroup " + parent + "/pod-a removed"));

  // A reload that changes the watch's settings applies them to its children.
  pods.workload_class = WorkloadClass::online;
  pods.priority = 3;
  registry.configure({pods}, {});
  auto fourth = registry.refresh(kNow + 3);
  EXPECT_TRUE(fourth.added.empty() && fourth.dropped.empty());
  EXPECT_EQ(registry.find("cgroup:" + parent + "/pod-b")->workload_class, WorkloadClass::online);
  EXPECT_EQ(registry.find("cgroup:" + parent + "/pod-b")->priority, 3);

  // Removing the watch drops its children; an api-registered cgroup stays.
  sys.add_cgroup("/sys/fs/cgroup/mine");
  registry.register_workload(cgroup_request("mine"), kNow);
  registry.configure({}, {});
  auto fifth = registry.refresh(kNow + 4);
  EXPECT_TRUE(fifth.added.empty());
  EXPECT_THAT(
      reasons_of(fifth.dropped),
      ::testing::ElementsAre("cgroup:" + parent + "/pod-b: watch removed from configuration",
                             "cgroup:" + parent + "/pod-c: watch removed from configuration"));
  EXPECT_EQ(ids_of(registry.workloads()), std::vector<std::string>{"cgroup:/sys/fs/cgroup/mine"});
}

TEST(RegistryFixture, ApiRegisteredChildOfAWatchedParentIsNotAddedTwice) {
  FakeSystem sys;
  sys.add_cgroup("/sys/fs/cgroup/p/a");
  Registry registry(sys.root());
  registry.register_workload(cgroup_request("p/a"), kNow);
  registry.configure({watch("/sys/fs/cgroup/p")}, {});
  auto result = registry.refresh(kNow);
  EXPECT_TRUE(result.added.empty());
  ASSERT_EQ(registry.workloads().size(), 1u);
  EXPECT_EQ(registry.workloads()[0].source, WorkloadSource::api);
}

// ---- process-name rules (fixture) -----------------------------------------------

TEST(RegistryFixture, RulesMatchCommOrExeBasenameFirstRuleWins) {
  FakeSystem sys;
  sys.add_process(proc(200).named("redis-server").started(1));
  sys.add_process(proc(201).named("worker").started(2).running("/usr/bin/memcached"));
  sys.add_process(proc(202).named("redis-server").kernel_thread().started(3));
  sys.add_process(proc(203).named("redis-server").started(4));   // registered via api
  sys.add_process(proc(204).named("redis-serverX").started(5));  // not a full match
  sys.add_process(proc(205).named("memcached").started(6).running("/old (deleted)"));
  sys.add_process(proc(206).named("w").started(7).running("/opt/redis-server (deleted)"));
  Registry registry(sys.root());
  registry.register_workload(pid_request(203), kNow);
  registry.configure({}, {rule("redis-serv(er)", WorkloadClass::online, 10, "shared", "1G"),
                          rule("memcache.|redis-.*", WorkloadClass::offline, 0, "batch")});
  auto result = registry.refresh(kNow);
  EXPECT_TRUE(result.dropped.empty());
  EXPECT_EQ(ids_of(result.added),
            (std::vector<std::string>{"rule:200", "rule:201", "rule:204", "rule:205", "rule:206"}));

  const Workload* redis = registry.find("rule:200");
  ASSERT_NE(redis, nullptr);
  EXPECT_EQ(redis->source, WorkloadSource::rule);
  EXPECT_EQ(redis->name, "redis-server");
  EXPECT_EQ(redis->pid, 200);
  EXPECT_EQ(redis->start_time, 1u);
  EXPECT_EQ(redis->workload_class, WorkloadClass::online);
  EXPECT_EQ(redis->priority, 10);
  EXPECT_EQ(redis->quota.bytes, std::uint64_t{1} << 30);
  // redis-serverX and the exe-matched ones fall through to the second rule.
  EXPECT_EQ(registry.find("rule:204")->workload_class, WorkloadClass::offline);
  EXPECT_EQ(registry.find("rule:201")->name, "worker");
  EXPECT_EQ(registry.find("rule:201")->pool, "batch");
  EXPECT_EQ(registry.find("rule:206")->workload_class, WorkloadClass::online);  // via exe

  EXPECT_TRUE(registry.refresh(kNow + 1).added.empty());

  sys.remove_process(200);
  sys.add_process(proc(201).named("worker").started(99).running("/usr/bin/memcached"));
  auto second = registry.refresh(kNow + 2);
  EXPECT_THAT(reasons_of(second.dropped),
              ::testing::ElementsAre("rule:200: process 200 exited",
                                     "rule:201: pid 201 reused by another process"));
  // The new process behind pid 201 still matches: it comes back as new.
  EXPECT_EQ(ids_of(second.added), std::vector<std::string>{"rule:201"});
  EXPECT_EQ(registry.find("rule:201")->start_time, 99u);

  // Dropping the second rule: what only it matched goes.
  registry.configure({}, {rule("redis-server")});
  auto third = registry.refresh(kNow + 3);
  EXPECT_TRUE(third.added.empty());
  EXPECT_THAT(reasons_of(third.dropped),
              ::testing::ElementsAre("rule:201: rule removed from configuration",
                                     "rule:204: rule removed from configuration",
                                     "rule:205: rule removed from configuration"));
  EXPECT_EQ(ids_of(registry.workloads()), (std::vector<std::string>{"pid:203", "rule:206"}));
  EXPECT_EQ(registry.find("rule:206")->workload_class, WorkloadClass::normal);  // new settings

  // A process renamed away from its rule leaves.
  sys.add_process(proc(206).named("w").started(7).running("/usr/bin/other"));
  EXPECT_THAT(
      reasons_of(registry.refresh(kNow + 4).dropped),
      ::testing::ElementsAre("rule:206: process 206 no longer matches rule 'redis-server'"));
}

TEST(RegistryFixture, ApiRegistrationTakesOverARuleWorkload) {
  FakeSystem sys;
  sys.add_process(proc(200).named("redis-server"));
  Registry registry(sys.root());
  registry.configure({}, {rule("redis-server")});
  EXPECT_EQ(ids_of(registry.refresh(kNow).added), std::vector<std::string>{"rule:200"});
  registry.register_workload(pid_request(200), kNow);
  auto result = registry.refresh(kNow + 1);
  EXPECT_TRUE(result.added.empty());
  EXPECT_THAT(reasons_of(result.dropped),
              ::testing::ElementsAre("rule:200: pid 200 registered via api"));
  EXPECT_EQ(ids_of(registry.workloads()), std::vector<std::string>{"pid:200"});
}

TEST(RegistryFixture, BadRegexThrowsNamingThePatternAndKeepsTheOldRules) {
  FakeSystem sys;
  sys.add_process(proc(200).named("redis-server"));
  Registry registry(sys.root());
  registry.configure({}, {rule("redis-server")});
  try {
    registry.configure({}, {rule("ok"), rule("([")});
    FAIL() << "configure accepted a bad regex";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("'(['"));
    EXPECT_THAT(error.what(), HasSubstr("not a valid regular expression"));
  }
  EXPECT_THROW(registry.configure({}, {rule("")}), std::invalid_argument);
  EXPECT_EQ(ids_of(registry.refresh(kNow).added), std::vector<std::string>{"rule:200"});
}

// ---- the live system -------------------------------------------------------------

bool wait_for(const std::function<bool()>& condition) {
  for (int i = 0; i < 500; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

std::optional<char> live_state(pid_t pid) {
  auto stat = tierd::detail::read_proc_stat(tier::SysRoot("/"), pid);
  if (!stat) return std::nullopt;
  return stat->state;
}

/// A forked child that renames itself (prctl PR_SET_NAME) and waits to be
/// killed; killed and reaped on destruction.
class NamedChild {
 public:
  explicit NamedChild(const std::string& name) {
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
      for (;;) ::pause();
    }
    tier::SysRoot live("/");
    bool renamed =
        wait_for([&] { return live.read("/proc/" + std::to_string(pid_) + "/comm") == name; });
    if (!renamed) throw std::runtime_error("child never took the name " + name);
  }
  ~NamedChild() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  NamedChild(const NamedChild&) = delete;
  NamedChild& operator=(const NamedChild&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

TEST(RegistryLive, RegistersARealChildAndDropsItWhenKilled) {
  tier::test::Process child({"sleep", "1000"});
  ASSERT_TRUE(wait_for([&] {
    return tier::SysRoot("/").read("/proc/" + std::to_string(child.pid()) + "/comm") == "sleep";
  }));
  Registry registry(tier::SysRoot("/"));
  const Workload& w = registry.register_workload(pid_request(child.pid()), kNow);
  EXPECT_EQ(w.id, "pid:" + std::to_string(child.pid()));
  EXPECT_EQ(w.name, "sleep");
  EXPECT_EQ(w.source, WorkloadSource::api);
  EXPECT_GT(w.start_time, 0u);
  EXPECT_EQ(w.start_time,
            tierd::detail::read_proc_stat(tier::SysRoot("/"), child.pid())->start_time);
  EXPECT_EQ(registry.pids_of(w), std::vector<pid_t>{child.pid()});
  EXPECT_TRUE(registry.refresh(kNow + 1).dropped.empty());

  // Killed but not yet reaped (a zombie) already counts as exited.
  const pid_t pid = child.pid();
  child.signal(SIGKILL);
  ASSERT_TRUE(wait_for([&] { return live_state(pid) == 'Z'; }));
  auto result = registry.refresh(kNow + 2);
  EXPECT_THAT(reasons_of(result.dropped),
              ::testing::ElementsAre("pid:" + std::to_string(pid) + ": process " +
                                     std::to_string(pid) + " exited"));
  child.wait();
  EXPECT_EQ(registration_error(registry, pid_request(pid)), "no process " + std::to_string(pid));
}

TEST(RegistryLive, RefusesAThreadId) {
  std::promise<pid_t> tid;
  std::promise<void> release;
  std::thread thread([&] {
    tid.set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    release.get_future().wait();
  });
  pid_t thread_id = tid.get_future().get();
  Registry registry(tier::SysRoot("/"));
  std::string error = registration_error(registry, pid_request(thread_id));
  release.set_value();
  thread.join();
  EXPECT_EQ(error, "pid " + std::to_string(thread_id) + " is a thread of process " +
                       std::to_string(::getpid()) + "; register the process");
  EXPECT_EQ(registry.register_workload(pid_request(::getpid()), kNow).pid, ::getpid());
}

TEST(RegistryLive, RefusesKernelThreadAndMissingPid) {
  Registry registry(tier::SysRoot("/"));
  EXPECT_THAT(registration_error(registry, pid_request(99999999)), "no process 99999999");
  if (tier::SysRoot("/").read("/proc/2/comm") != "kthreadd")
    GTEST_SKIP() << "pid 2 is not kthreadd";
  EXPECT_EQ(registration_error(registry, pid_request(2)), "pid 2 is a kernel thread");
}

TEST(RegistryLive, RuleMatchesARealProcessByComm) {
  // A name no other process has: tier-<our pid>, within comm's 15 characters.
  std::string name = "tier-" + std::to_string(::getpid());
  NamedChild child(name);
  Registry registry(tier::SysRoot("/"));
  registry.configure({}, {rule(name, WorkloadClass::online)});
  auto result = registry.refresh(kNow);
  ASSERT_EQ(ids_of(result.added), std::vector<std::string>{"rule:" + std::to_string(child.pid())});
  EXPECT_EQ(result.added[0].name, name);
  EXPECT_EQ(result.added[0].pid, child.pid());
  EXPECT_EQ(result.added[0].workload_class, WorkloadClass::online);
  EXPECT_TRUE(registry.refresh(kNow + 1).added.empty());
}

TEST(RegistryLive, RuleMatchesARealProcessByExeBasename) {
  // A copy of sleep under a name longer than comm's 15 characters: only the
  // exe basename holds all of it.
  tier::test::TempDir dir("tier-exe");
  std::string name = "tier-exe-rule-" + std::to_string(::getpid()) + "-sleeper";
  fs::path exe = dir.path() / name;
  fs::copy_file("/bin/sleep", exe);
  if (::access(exe.c_str(), X_OK) != 0) GTEST_SKIP() << exe << " is not executable (noexec?)";
  tier::test::Process child({exe.string(), "1000"});
  ASSERT_TRUE(wait_for([&] {
    auto comm = tier::SysRoot("/").read("/proc/" + std::to_string(child.pid()) + "/comm");
    return comm && name.compare(0, comm->size(), *comm) == 0 && comm->size() == 15;
  }));
  Registry registry(tier::SysRoot("/"));
  registry.configure({}, {rule(name)});
  auto result = registry.refresh(kNow);
  ASSERT_EQ(ids_of(result.added), std::vector<std::string>{"rule:" + std::to_string(child.pid())});
  EXPECT_EQ(result.added[0].name, name.substr(0, 15));  // comm
  const pid_t pid = child.pid();
  child.signal(SIGKILL);
  child.wait();
  EXPECT_THAT(reasons_of(registry.refresh(kNow + 1).dropped),
              ::testing::ElementsAre("rule:" + std::to_string(pid) + ": process " +
                                     std::to_string(pid) + " exited"));
}

// ---- the real cgroup2 tree ---------------------------------------------------------

/// The cgroup2 mount: /sys/fs/cgroup on a unified host, /sys/fs/cgroup/unified
/// on a hybrid one; empty when there is none.
std::string cgroup2_mount() {
  std::ifstream mounts("/proc/self/mounts");
  std::string line;
  std::string found;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string device, mount_point, type;
    fields >> device >> mount_point >> type;
    if (type == "cgroup2" && (found.empty() || mount_point == "/sys/fs/cgroup"))
      found = mount_point;
  }
  return found;
}

class RegistryRealCgroup : public ::testing::Test {
 protected:
  void SetUp() override {
    mount_ = cgroup2_mount();
    if (mount_.empty()) GTEST_SKIP() << "no cgroup2 mounted";
    parent_ = mount_ + "/tier-test-" + std::to_string(::getpid());
    if (::mkdir(parent_.c_str(), 0755) != 0) {
      std::string why = std::strerror(errno);
      parent_.clear();
      GTEST_SKIP() << "cannot create a cgroup under " << mount_ << ": " << why;
    }
  }
  void TearDown() override {
    if (parent_.empty()) return;
    // Children first; a cgroup whose last process just died may need a moment.
    for (const auto& child : created_) remove_cgroup(child);
    remove_cgroup(parent_);
  }
  std::string make_child(const std::string& name) {
    std::string path = parent_ + "/" + name;
    if (::mkdir(path.c_str(), 0755) != 0) throw std::runtime_error("mkdir " + path);
    created_.insert(created_.begin(), path);
    return path;
  }
  static void remove_cgroup(const std::string& path) {
    for (int i = 0; i < 200 && ::rmdir(path.c_str()) != 0 && errno != ENOENT; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  std::string mount_;
  std::string parent_;
  std::vector<std::string> created_;
};

TEST_F(RegistryRealCgroup, WatchSeesChildrenTheirProcessesAndRemoval) {
  std::string a = make_child("a");
  std::string b = make_child("b");
  Registry registry(tier::SysRoot("/"));
  registry.configure({watch(parent_, WorkloadClass::offline)}, {});
  auto first = registry.refresh(kNow);
  EXPECT_EQ(ids_of(first.added), (std::vector<std::string>{"cgroup:" + a, "cgroup:" + b}));

  {
    tier::test::Process child({"sleep", "1000"});
    std::ofstream procs(a + "/cgroup.procs");
    procs << child.pid() << "\n";
    procs.flush();
    if (procs) {
      EXPECT_EQ(registry.pids_of(*registry.find("cgroup:" + a)), std::vector<pid_t>{child.pid()});
    } else {
      ADD_FAILURE() << "could not move a child into " << a;
    }
  }  // the child is killed and reaped here

  remove_cgroup(b);
  auto second = registry.refresh(kNow + 1);
  EXPECT_TRUE(second.added.empty());
  EXPECT_THAT(reasons_of(second.dropped),
              ::testing::ElementsAre("cgroup:" + b + ": cgroup " + b + " removed"));
  registry.configure({}, {});
  EXPECT_THAT(reasons_of(registry.refresh(kNow + 2).dropped),
              ::testing::ElementsAre("cgroup:" + a + ": watch removed from configuration"));
}

}  // namespace
