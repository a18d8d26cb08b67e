// tierd end to end: the real daemon on a private socket/state file, real
// child processes as workloads, real cgroups, the real numa_balancing sysctl
// (restored; CTest lock). Asserts outcomes: what the registry holds after a
// process exits or a cgroup goes, what a restart recovers, which value the
// kernel knob has while tierd runs and after it stops, who may change what.
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <cstring>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "http_get.hpp"
#include "tierd_harness.hpp"

namespace tier::test {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

// Fast timers so every "next epoch" comes within a fraction of a second.
std::string fast_config(const std::string& extra = "") {
  return "[daemon]\nepoch_ms = 200\n[policy]\ntick_ms = 200\n" + extra;
}

bool ok(const json::object& reply) {
  return reply.contains("ok") && reply.at("ok").is_bool() && reply.at("ok").as_bool();
}
std::string code(const json::object& reply) {
  return reply.contains("code") ? std::string(reply.at("code").as_string()) : "";
}

json::array workloads(const TierdInstance& tierd) {
  json::object result = tierd.result("workloads.list");
  return result.contains("workloads") ? result.at("workloads").as_array() : json::array{};
}
json::array dropped(const TierdInstance& tierd) {
  json::object result = tierd.result("workloads.list");
  return result.contains("dropped") ? result.at("dropped").as_array() : json::array{};
}
// The entry (a workload, or a dropped record holding one) with that id; a
// copy, since the lists are temporaries.
std::optional<json::object> find_id(const json::array& list, const std::string& id) {
  for (const json::value& item : list) {
    const json::object& object =
        item.as_object().contains("workload") ? item.at("workload").as_object() : item.as_object();
    if (object.at("id").as_string() == id) return item.as_object();
  }
  return std::nullopt;
}

std::string read_sysctl(const char* path) {
  std::ifstream in(path);
  std::string value;
  in >> value;
  return value;
}

// A child that maps, touches and unmaps 4 MiB forever: a page fault stream.
struct Toucher {
  pid_t pid = ::fork();
  Toucher() {
    if (pid != 0) return;
    for (;;) {
      void* block =
          ::mmap(nullptr, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block != MAP_FAILED) {
        std::memset(block, 1, 4 << 20);
        ::munmap(block, 4 << 20);
      }
    }
  }
  ~Toucher() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  Toucher(const Toucher&) = delete;
  Toucher& operator=(const Toucher&) = delete;
};

class Tierd : public ::testing::Test {
 protected:
  TempDir dir_{"tierd-e2e"};
};

TEST_F(Tierd, RegisteredProcessIsListedWithResidencyThenDroppedWhenItExits) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Process sleeper({"sleep", "1000"});
  const std::string id = "pid:" + std::to_string(sleeper.pid());
  json::object reply =
      tierd.call("workloads.register",
                 {{"pid", sleeper.pid()}, {"class", "online"}, {"priority", 5}, {"quota", "25%"}});
  ASSERT_TRUE(ok(reply)) << json::serialize(reply);
  const json::object& stored = reply.at("result").at("workload").as_object();
  EXPECT_EQ(stored.at("id").as_string(), id);
  EXPECT_EQ(stored.at("name").as_string(), "sleep");
  EXPECT_EQ(stored.at("class").as_string(), "online");
  EXPECT_EQ(stored.at("quota").as_string(), "25%");

  // Residency arrives with the next epochs: sleep's pages are on node 0.
  ASSERT_TRUE(eventually([&] {
    std::optional<json::object> w = find_id(workloads(tierd), id);
    return w.has_value() && w->contains("resident_bytes_by_node") &&
           w->at("resident_bytes_by_node").as_object().contains("0") &&
           w->at("resident_bytes_by_node").at("0").to_number<std::uint64_t>() > 0;
  })) << json::serialize(workloads(tierd));
  EXPECT_EQ(tierd.result("status").at("workloads").at("online").as_int64(), 1);

  const pid_t pid = sleeper.pid();
  sleeper.signal(SIGKILL);
  sleeper.wait();
  ASSERT_TRUE(eventually([&] { return find_id(workloads(tierd), id) == std::nullopt; }));
  std::optional<json::object> gone = find_id(dropped(tierd), id);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->at("reason").as_string(), "process " + std::to_string(pid) + " exited");
  EXPECT_EQ(tierd.result("status").at("workloads").at("dropped_total").as_int64(), 1);
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

TEST_F(Tierd, RegistrationErrorsHaveCodesAndChangeNothing) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  EXPECT_EQ(code(tierd.call("workloads.register", {{"pid", 4'000'000}})), "not_found");
  EXPECT_EQ(code(tierd.call("workloads.register", {{"pid", 2}})), "bad_request");  // kthreadd
  EXPECT_EQ(code(tierd.call("workloads.register", {})), "bad_request");
  EXPECT_EQ(code(tierd.call("workloads.register", {{"pid", ::getpid()}, {"class", "gold"}})),
            "bad_request");
  EXPECT_EQ(code(tierd.call("workloads.register", {{"pid", ::getpid()}, {"quota", "lots"}})),
            "bad_request");
  EXPECT_TRUE(ok(tierd.call("workloads.register", {{"pid", ::getpid()}})));
  EXPECT_EQ(code(tierd.call("workloads.register", {{"pid", ::getpid()}})), "conflict");
  EXPECT_EQ(code(tierd.call("workloads.unregister", {{"id", "pid:1"}})), "not_found");
  EXPECT_TRUE(ok(tierd.call("workloads.unregister", {{"id", ::getpid()}})));
  EXPECT_TRUE(workloads(tierd).empty());
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// Every field of every method through the value grammar: the refusal is
// bad_request naming the field (a process that does not exist: not_found),
// and nothing was registered or changed.
struct FieldCase {
  const char* method;
  json::object params;
  const char* code;
  std::string message;  // a part of the error
};

TEST_F(Tierd, EveryRequestFieldIsCheckedAndNamedAndChangesNothing) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  const std::int64_t self = ::getpid();
  const std::string pid_range = "expected a process id from 1 to 4194304";
  const std::vector<FieldCase> cases = {
      {"workloads.register", {{"pid", 0}}, "bad_request", "\"pid\" '0': " + pid_range},
      {"workloads.register", {{"pid", -1}}, "bad_request", "\"pid\" '-1': " + pid_range},
      {"workloads.register", {{"pid", 5'000'000}}, "bad_request", "'5000000': " + pid_range},
      {"workloads.register", {{"pid", "abc"}}, "bad_request", "\"pid\" 'abc': " + pid_range},
      {"workloads.register", {{"pid", ""}}, "bad_request", "\"pid\" '': " + pid_range},
      {"workloads.register", {{"pid", true}}, "bad_request", "\"pid\" 'true': " + pid_range},
      {"workloads.register", {{"pid", 4'000'000}}, "not_found", "no process"},
      {"workloads.register",
       {{"cgroup", ""}},
       "bad_request",
       "\"cgroup\" '': expected a cgroup directory path, got nothing"},
      {"workloads.register", {{"pid", self}, {"name", ""}}, "bad_request", "\"name\" '': "},
      {"workloads.register", {{"pid", self}, {"class", ""}}, "bad_request", "\"class\""},
      {"workloads.register",
       {{"pid", self}, {"priority", 1001}},
       "bad_request",
       "\"priority\" '1001': expected an integer from -1000 to 1000"},
      {"workloads.register",
       {{"pid", self}, {"priority", "high"}},
       "bad_request",
       "\"priority\" 'high': expected an integer from -1000 to 1000"},
      {"workloads.register",
       {{"pid", self}, {"budget_mbps", -1}},
       "bad_request",
       "\"budget_mbps\" '-1': expected an integer from 0 to 100000"},
      {"workloads.register",
       {{"pid", self}, {"budget_mbps", 1.5}},
       "bad_request",
       "\"budget_mbps\""},
      {"workloads.register", {{"pid", self}, {"pool", ""}}, "bad_request", "\"pool\": "},
      {"workloads.register",
       {{"pid", self}, {"pool", "exclusive:0"}},
       "bad_request",
       "K must be at least 1"},
      {"workloads.register",
       {{"pid", self}, {"pool", "numa:1023"}},
       "bad_request",
       "\"pool\" 'numa:1023': no such NUMA node 1023 on this machine (nodes: "},
      {"workloads.register",
       {{"pid", self}, {"quota", "lots"}},
       "bad_request",
       "\"quota\": invalid quota 'lots'"},
      {"workloads.unregister", {{"id", ""}}, "bad_request", "\"id\" '': "},
      {"workloads.unregister", {{"id", "0"}}, "bad_request", "\"id\" '0': " + pid_range},
      {"workloads.unregister", {{"id", -5}}, "bad_request", "\"id\" '-5': " + pid_range},
      {"workloads.unregister", {{"id", "pid:1"}}, "not_found", "no workload 'pid:1'"},
      {"workloads.update", {{"id", "0"}, {"pool", "shared"}}, "bad_request", pid_range},
      {"workloads.update",
       {{"id", self}, {"pool", "numa:1023"}},
       "bad_request",
       "no such NUMA node 1023"},
      {"heat", {{"pid", 0}}, "bad_request", "\"pid\" '0': " + pid_range},
      {"heat",
       {{"pid", self}, {"duration_ms", 50}},
       "bad_request",
       "\"duration_ms\" '50': expected an integer from 100 to 10000"},
      {"heat",
       {{"pid", self}, {"duration_ms", "20s"}},
       "bad_request",
       "\"duration_ms\" '20s': expected milliseconds or a duration with ms, s, m or h from "
       "100ms to 10s"},
      {"heat", {{"pid", self}, {"duration_ms", ""}}, "bad_request", "\"duration_ms\" '': "},
      {"heat", {{"pid", self}, {"source", ""}}, "bad_request", "\"source\" '': "},
      {"heat",
       {{"pid", self}, {"source", "crystal"}},
       "bad_request",
       "\"source\" 'crystal': expected auto, a heat source or two"},
      {"heat",
       {{"pid", self}, {"source", "damon,pmu,idle-page"}},
       "bad_request",
       "\"source\" 'damon,pmu,idle-page'"},
      {"heat", {{"pid", 4'000'000}}, "not_found", "\"pid\" '4000000': no such process"},
      {"policy.set", {{"name", ""}}, "bad_request", "\"name\" '': expected a policy name"},
      {"policy.set",
       {{"name", "balanced"}, {"params", {{"budget_mbps", "lots"}}}},
       "bad_request",
       "\"params.budget_mbps\" 'lots': expected a number"},
      {"policy.set",
       {{"name", "balanced"}, {"params", {{"budget_mbps", -1}}}},
       "bad_request",
       "parameter 'budget_mbps': expected a number from 0 to 100000, got -1"},
  };
  for (const FieldCase& c : cases) {
    const json::object reply = tierd.call(c.method, c.params);
    SCOPED_TRACE(std::string(c.method) + " " + json::serialize(c.params));
    EXPECT_EQ(code(reply), c.code) << json::serialize(reply);
    const std::string error =
        reply.contains("error") ? std::string(reply.at("error").as_string()) : "";
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
  EXPECT_TRUE(workloads(tierd).empty());
  EXPECT_EQ(tierd.result("policy.get").at("name").as_string(), "balanced");  // the default
  // The grammar reads numbers given as strings too.
  json::object reply =
      tierd.call("workloads.register", {{"pid", std::to_string(self)}, {"priority", "10"}});
  ASSERT_TRUE(ok(reply)) << json::serialize(reply);
  EXPECT_EQ(reply.at("result").at("workload").at("priority").as_int64(), 10);
  EXPECT_TRUE(ok(tierd.call("workloads.unregister", {{"id", std::to_string(self)}})));
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// A real cgroup tree (cgroup v1 pids hierarchy or v2): each child of the
// watched parent becomes a workload; removing it drops the workload.
TEST_F(Tierd, WatchedParentCgroupChildrenComeAndGo) {
  fs::path hierarchy;
  for (const char* candidate :
       {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"}) {
    if (fs::exists(fs::path(candidate) / "cgroup.procs") && ::access(candidate, W_OK) == 0) {
      hierarchy = candidate;
      break;
    }
  }
  if (hierarchy.empty()) GTEST_SKIP() << "no writable cgroup hierarchy here";
  const fs::path parent = hierarchy / ("tier-test-" + std::to_string(::getpid()));
  struct Cleanup {
    fs::path parent;
    ~Cleanup() {
      std::error_code ec;
      for (const char* child : {"a", "b"}) fs::remove(parent / child, ec);
      fs::remove(parent, ec);
    }
  } cleanup{parent};
  ASSERT_TRUE(fs::create_directory(parent));
  ASSERT_TRUE(fs::create_directory(parent / "a"));
  TierdInstance tierd(dir_.path(), fast_config("[[workloads.watch]]\nparent = \"" +
                                               parent.string() + "\"\nclass = \"offline\"\n"));
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  const std::string a = "cgroup:" + (parent / "a").string();
  const std::string b = "cgroup:" + (parent / "b").string();
  ASSERT_TRUE(eventually([&] { return find_id(workloads(tierd), a).has_value(); }))
      << json::serialize(workloads(tierd));
  EXPECT_EQ(find_id(workloads(tierd), a)->at("source").as_string(), "cgroup");
  EXPECT_EQ(find_id(workloads(tierd), a)->at("class").as_string(), "offline");
  ASSERT_TRUE(fs::create_directory(parent / "b"));
  ASSERT_TRUE(eventually([&] { return find_id(workloads(tierd), b).has_value(); }));
  ASSERT_TRUE(fs::remove(parent / "a"));
  ASSERT_TRUE(eventually([&] { return find_id(workloads(tierd), a) == std::nullopt; }));
  std::optional<json::object> gone = find_id(dropped(tierd), a);
  ASSERT_TRUE(gone);
  EXPECT_NE(std::string(gone->at("reason").as_string()).find("removed"), std::string::npos)
      << json::serialize(*gone);
  EXPECT_TRUE(find_id(workloads(tierd), b).has_value());
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

TEST_F(Tierd, ProcessNameRuleAdoptsMatchingProcesses) {
  // A name no other process on the machine has.
  const std::string name = "tiersl" + std::to_string(::getpid() % 100000);
  const fs::path copy = dir_.path() / name;
  fs::copy_file("/bin/sleep", copy);
  TierdInstance tierd(dir_.path(),
                      fast_config("[[workloads.rule]]\nmatch = \"" + name +
                                  "\"\nclass = \"online\"\npriority = 7\nquota = \"1G\"\n"));
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Process matching({copy.string(), "1000"});
  const std::string id = "rule:" + std::to_string(matching.pid());
  ASSERT_TRUE(eventually([&] { return find_id(workloads(tierd), id).has_value(); }))
      << json::serialize(workloads(tierd));
  std::optional<json::object> w = find_id(workloads(tierd), id);
  EXPECT_EQ(w->at("source").as_string(), "rule");
  EXPECT_EQ(w->at("priority").as_int64(), 7);
  EXPECT_EQ(w->at("quota").as_string(), "1G");
  EXPECT_EQ(workloads(tierd).size(), 1u);
  matching.signal(SIGKILL);
  matching.wait();
  ASSERT_TRUE(eventually([&] { return find_id(workloads(tierd), id) == std::nullopt; }));
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// The peer's credentials decide: a mutating request from uid 65534 is
// refused and changes nothing; reads are allowed.
TEST_F(Tierd, UnauthorizedChangeIsRefusedAndStateIsUnchanged) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  fs::permissions(dir_.path(),
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Process sleeper({"sleep", "1000"});
  ASSERT_TRUE(ok(tierd.call("workloads.register", {{"pid", sleeper.pid()}})));
  const std::string state_before = read_text_file(tierd.state());
  const std::string list_before = json::serialize(workloads(tierd));

  // The child becomes nobody and reports each reply's code on a pipe.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    std::string codes;
    for (const char* method : {"workloads.unregister", "pause", "policy.set", "reload",
                               "workloads.register", "status", "workloads.list"}) {
      ControlClient client(tierd.socket());
      json::object params{{"id", "pid:" + std::to_string(sleeper.pid())}, {"name", "static"}};
      if (std::string(method) == "workloads.register") params = {{"pid", ::getpid()}};
      json::object reply = client.call(method, params);
      codes += std::string(method) + "=" + (ok(reply) ? "ok" : code(reply)) + ";";
    }
    (void)!::write(fds[1], codes.data(), codes.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string codes;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) codes.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(codes,
            "workloads.unregister=permission;pause=permission;policy.set=permission;"
            "reload=permission;workloads.register=permission;status=ok;workloads.list=ok;");
  EXPECT_EQ(json::serialize(workloads(tierd)), list_before);
  EXPECT_EQ(read_text_file(tierd.state()), state_before);
  EXPECT_EQ(tierd.result("status").at("state").as_string(), "running");
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

TEST_F(Tierd, KillNineThenRestartRecoversLiveWorkloadsAndDropsDeadOnes) {
  TierdInstance first(dir_.path(), fast_config());
  ASSERT_TRUE(first.start()) << first.log_so_far();
  Process survivor({"sleep", "1000"});
  std::optional<Process> victim;
  victim.emplace(std::vector<std::string>{"sleep", "1000"});
  const pid_t victim_pid = victim->pid();
  ASSERT_TRUE(ok(first.call("workloads.register",
                            {{"pid", survivor.pid()}, {"class", "online"}, {"quota", "2G"}})));
  ASSERT_TRUE(ok(first.call("workloads.register", {{"pid", victim_pid}, {"class", "offline"}})));
  ASSERT_TRUE(ok(first.call("pause")));
  first.kill9();
  victim.reset();  // killed and reaped while tierd is down

  TierdInstance second(dir_.path(), fast_config());
  ASSERT_TRUE(second.start()) << second.log_so_far();
  json::array list = workloads(second);
  ASSERT_EQ(list.size(), 1u) << json::serialize(list);
  const json::object& back = list[0].as_object();
  EXPECT_EQ(back.at("id").as_string(), "pid:" + std::to_string(survivor.pid()));
  EXPECT_EQ(back.at("class").as_string(), "online");
  EXPECT_EQ(back.at("quota").as_string(), "2G");
  std::optional<json::object> gone = find_id(dropped(second), "pid:" + std::to_string(victim_pid));
  ASSERT_TRUE(gone) << json::serialize(dropped(second));
  EXPECT_EQ(gone->at("reason").as_string(),
            "process " + std::to_string(victim_pid) + " exited while tierd was down");
  EXPECT_EQ(second.result("status").at("state").as_string(), "paused");
  const json::object file = second.result("status").at("state_file").as_object();
  EXPECT_EQ(file.at("found").as_string(), "loaded");
  EXPECT_EQ(file.at("recovered_workloads").as_int64(), 1);
  EXPECT_EQ(file.at("problem").as_string(), "");
  EXPECT_EQ(second.stop().exit_code, 0);
}

// A state file tierd cannot use (torn, empty, garbage, not an object): it
// starts, says what it found, keeps the file byte-identical as PATH.bad,
// serves, and writes a fresh state file of its own.
TEST_F(Tierd, DamagedStateFileIsKeptAsideReportedAndReplaced) {
  const std::string good =
      R"({"version":1,"workloads":[],"kernel":{},"paused":true,"policy":{"name":"static"}})";
  const std::pair<std::string, std::string> cases[] = {
      {good.substr(0, good.size() / 2),
       "is not valid JSON (" + std::to_string(good.size() / 2) + " bytes)"},
      {"", "is empty (0 bytes)"},
      {"\x7f"
       "ELF\x01\x02 garbage\n",
       "is not valid JSON (15 bytes)"},
      {"[1, 2]", "is not a JSON object"}};
  for (const auto& [text, problem] : cases) {
    SCOPED_TRACE(problem);
    TierdInstance tierd(dir_.path(), fast_config());
    write_text_file(tierd.state(), text);
    fs::remove(tierd.state().string() + ".bad");
    ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
    const json::object status = tierd.result("status");
    const json::object file = status.at("state_file").as_object();
    EXPECT_EQ(file.at("found").as_string(), "damaged");
    EXPECT_THAT(std::string(file.at("problem").as_string()),
                HasSubstr("state file " + tierd.state().string() + " " + problem));
    EXPECT_EQ(file.at("kept_as").as_string(), tierd.state().string() + ".bad");
    EXPECT_EQ(read_text_file(tierd.state().string() + ".bad"), text);
    // Started without it: not paused as the damaged file said, and serving.
    EXPECT_EQ(status.at("state").as_string(), "running");
    EXPECT_GE(file.at("writes").as_int64(), 1);
    EXPECT_TRUE(json::parse(read_text_file(tierd.state())).is_object());
    EXPECT_THAT(tierd.log_so_far(),
                HasSubstr("; kept as " + tierd.state().string() + ".bad, starting without it"));
    EXPECT_EQ(tierd.stop().exit_code, 0);
  }
}

// A tierd killed mid-write leaves its temporary (PATH.tmp.PID): the next
// start removes it and leaves everything else in the directory alone.
TEST_F(Tierd, StartRemovesTemporariesOfATierdKilledMidWrite) {
  TierdInstance tierd(dir_.path(), fast_config());
  const fs::path stale = tierd.state().string() + ".tmp.999999";
  const fs::path other = dir_.path() / "state.json.bak";
  write_text_file(stale, R"({"workloads":[)");
  write_text_file(other, "keep");
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(read_text_file(other), "keep");
  EXPECT_THAT(tierd.log_so_far(), HasSubstr("state: removed " + stale.string()));
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// A state write that fails (here: the temporary file cannot be created, as
// on a full file system the write would fail) leaves the previous file
// byte-identical, is counted and reported, and the next good write clears
// the error but keeps the count and the last error.
TEST_F(Tierd, FailedStateWriteKeepsThePreviousFileAndIsCounted) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Process sleeper({"sleep", "1000"});
  const std::string before = read_text_file(tierd.state());
  // write_state_file's temporary is PATH.tmp.PID: a directory there makes
  // its creation fail whoever tierd runs as.
  const fs::path blocker = tierd.state().string() + ".tmp." + std::to_string(tierd.pid());
  fs::create_directory(blocker);
  ASSERT_TRUE(ok(tierd.call("workloads.register", {{"pid", sleeper.pid()}})));
  EXPECT_EQ(read_text_file(tierd.state()), before);
  json::object status = tierd.result("status");
  json::object file = status.at("state_file").as_object();
  EXPECT_GE(file.at("write_failures").as_int64(), 1);
  EXPECT_THAT(std::string(file.at("last_write_error").as_string()),
              HasSubstr("cannot write state file " + tierd.state().string() + ": create"));
  EXPECT_GT(file.at("last_write_error_unix_s").as_int64(), 0);
  EXPECT_TRUE(status.contains("state_error"));
  const std::int64_t failures = file.at("write_failures").as_int64();
  const std::int64_t writes = file.at("writes").as_int64();

  fs::remove(blocker);
  ASSERT_TRUE(ok(tierd.call("workloads.unregister", {{"id", sleeper.pid()}})));
  status = tierd.result("status");
  file = status.at("state_file").as_object();
  EXPECT_FALSE(status.contains("state_error"));
  EXPECT_EQ(file.at("write_failures").as_int64(), failures);
  EXPECT_THAT(std::string(file.at("last_write_error").as_string()), HasSubstr(": create"));
  EXPECT_GT(file.at("writes").as_int64(), writes);
  EXPECT_THAT(tierd.log_so_far(), HasSubstr(" is kept as it was"));
  EXPECT_THAT(tierd.log_so_far(), HasSubstr(" written again"));
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// numa_balancing set by [kernel] while tierd runs and restored at stop; after
// a SIGKILL the next tierd adopts the original from state and restores it.
TEST_F(Tierd, KernelSettingIsRestoredAtStopAndAfterACrash) {
  const char* knob = "/proc/sys/kernel/numa_balancing";
  if (::access(knob, W_OK) != 0) GTEST_SKIP() << knob << " not writable";
  const std::string original = read_sysctl(knob);
  const std::string wanted = original == "1" ? "0" : "1";
  ScopedSysctl guard(knob, std::stol(original));  // restores even if tierd does not
  const std::string config = fast_config("[kernel]\nnuma_balancing = " + wanted + "\n");

  TierdInstance clean(dir_.path(), config);
  ASSERT_TRUE(clean.start()) << clean.log_so_far();
  EXPECT_EQ(read_sysctl(knob), wanted);
  json::object kernel = clean.result("status").at("kernel").as_object();
  EXPECT_EQ(kernel.at("numa_balancing").at("original").as_string(), original);
  EXPECT_EQ(kernel.at("numa_balancing").at("applied").as_string(), wanted);
  EXPECT_EQ(clean.stop().exit_code, 0);
  EXPECT_EQ(read_sysctl(knob), original);

  TierdInstance crashed(dir_.path(), config);
  ASSERT_TRUE(crashed.start()) << crashed.log_so_far();
  EXPECT_EQ(read_sysctl(knob), wanted);
  crashed.kill9();
  EXPECT_EQ(read_sysctl(knob), wanted);  // nobody restored it

  TierdInstance recovered(dir_.path(), config);
  ASSERT_TRUE(recovered.start()) << recovered.log_so_far();
  kernel = recovered.result("status").at("kernel").as_object();
  EXPECT_EQ(kernel.at("numa_balancing").at("original").as_string(), original);
  EXPECT_EQ(recovered.stop().exit_code, 0);
  EXPECT_EQ(read_sysctl(knob), original);
}

// kernel_tiering = "own" turns NUMA balancing off while tierd runs (the
// machine's value is 1 for this test); a reload to "coexist" gives it back at
// once, and after a crash under "own" the next start restores it from state.
TEST_F(Tierd, KernelTieringOwnIsUndoneOnReloadAndAfterACrash) {
  const char* knob = "/proc/sys/kernel/numa_balancing";
  if (::access(knob, W_OK) != 0) GTEST_SKIP() << knob << " not writable";
  ScopedSysctl machine(knob, 1);  // and back to the host's value at the end
  ASSERT_TRUE(machine.ok());
  // A named source: with "auto", own would use hint faults (mode 2) on a
  // machine whose fast node is short of free memory.
  const std::string own =
      fast_config("[placement]\nkernel_tiering = \"own\"\nheat_source = \"perf-fault\"\n");
  const std::string coexist = fast_config("[placement]\nkernel_tiering = \"coexist\"\n");

  TierdInstance tierd(dir_.path(), own);
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  EXPECT_EQ(read_sysctl(knob), "0");
  EXPECT_EQ(tierd.result("status").at("placement").at("kernel_tiering").as_string(), "own");
  write_text_file(dir_.path() / "tierd.toml", coexist);
  ASSERT_TRUE(ok(tierd.call("reload")));
  EXPECT_EQ(read_sysctl(knob), "1");
  EXPECT_EQ(tierd.result("status").at("placement").at("kernel_tiering").as_string(), "coexist");
  EXPECT_EQ(tierd.stop().exit_code, 0);
  EXPECT_EQ(read_sysctl(knob), "1");

  write_text_file(dir_.path() / "tierd.toml", own);
  TierdInstance crashed(dir_.path(), own);
  ASSERT_TRUE(crashed.start()) << crashed.log_so_far();
  EXPECT_EQ(read_sysctl(knob), "0");
  crashed.kill9();
  EXPECT_EQ(read_sysctl(knob), "0");  // nobody restored it
  TierdInstance recovered(dir_.path(), coexist);
  ASSERT_TRUE(recovered.start()) << recovered.log_so_far();
  EXPECT_EQ(read_sysctl(knob), "1");  // the original, from state.json
  EXPECT_EQ(recovered.stop().exit_code, 0);
  EXPECT_EQ(read_sysctl(knob), "1");
}

TEST_F(Tierd, ReloadOverTheSocketAppliesAGoodFileAndKeepsTheOldOnABadOne) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  write_text_file(dir_.path() / "tierd.toml",
                  "[daemon]\nepoch_ms = 300\nlog_level = \"debug\"\n[policy]\ntick_ms = 500\n");
  json::object reply = tierd.call("reload");
  ASSERT_TRUE(ok(reply)) << json::serialize(reply);
  EXPECT_NE(json::serialize(reply.at("result").at("changes")).find("policy.tick_ms: 200 -> 500"),
            std::string::npos)
      << json::serialize(reply);
  json::object config = tierd.result("status").at("config").as_object();
  EXPECT_EQ(config.at("tick_ms").as_int64(), 500);
  EXPECT_EQ(config.at("log_level").as_string(), "debug");

  write_text_file(dir_.path() / "tierd.toml", "[policy]\ntick_ms = 700\nbogus = 1\n");
  reply = tierd.call("reload");
  EXPECT_EQ(code(reply), "failed");
  EXPECT_NE(std::string(reply.at("error").as_string()).find("tierd.toml:3: key 'policy.bogus'"),
            std::string::npos)
      << json::serialize(reply);
  json::object status = tierd.result("status");
  EXPECT_EQ(status.at("config").at("tick_ms").as_int64(), 500);
  EXPECT_FALSE(status.at("last_reload").at("ok").as_bool());
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// A file that parses but cannot work on this machine (a tier override for
// node 1023, which no test machine has) is refused whole, over the socket
// and on SIGHUP: the policy, the timers and the log level stay as they run.
TEST_F(Tierd, ReloadRefusedByTheMachineCheckKeepsTheRunningConfiguration) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  const std::string bad =
      "[daemon]\nepoch_ms = 300\nlog_level = \"debug\"\n[policy]\nname = \"tpp\"\n"
      "tick_ms = 700\n[topology]\ntier_override = { \"1023\" = 1 }\n";
  write_text_file(dir_.path() / "tierd.toml", bad);
  const std::string why = (dir_.path() / "tierd.toml").string() +
                          ":8: key 'topology.tier_override.1023': no such NUMA node 1023 on "
                          "this machine (nodes: ";
  const auto unchanged = [&tierd] {
    json::object status = tierd.result("status");
    EXPECT_EQ(status.at("config").at("tick_ms").as_int64(), 200);
    EXPECT_EQ(status.at("config").at("epoch_ms").as_int64(), 200);
    EXPECT_EQ(status.at("config").at("log_level").as_string(), "info");
    EXPECT_FALSE(status.at("last_reload").at("ok").as_bool());
    EXPECT_EQ(tierd.result("policy.get").at("name").as_string(), "balanced");
  };
  json::object reply = tierd.call("reload");
  EXPECT_EQ(code(reply), "failed");
  EXPECT_NE(std::string(reply.at("error").as_string()).find(why), std::string::npos)
      << json::serialize(reply);
  unchanged();

  ::kill(tierd.pid(), SIGHUP);
  EXPECT_TRUE(eventually([&] {
    return tierd.log_so_far().find("SIGHUP: reloading") != std::string::npos &&
           tierd.log_so_far().rfind(why) > tierd.log_so_far().find("SIGHUP: reloading");
  })) << tierd.log_so_far();
  unchanged();
  EXPECT_NE(tierd.log_so_far().find("tierd: error: reload failed, keeping the running "
                                    "configuration: " +
                                    why),
            std::string::npos)
      << tierd.log_so_far();

  // A warning does not refuse the file: it is applied and the warning logged.
  write_text_file(dir_.path() / "tierd.toml",
                  "[daemon]\nepoch_ms = 200\n[policy]\ntick_ms = 400\n"
                  "[[workloads.watch]]\nparent = \"/sys/fs/cgroup/tier-none\"\n");
  reply = tierd.call("reload");
  EXPECT_TRUE(ok(reply)) << json::serialize(reply);
  EXPECT_EQ(tierd.result("status").at("config").at("tick_ms").as_int64(), 400);
  EXPECT_NE(tierd.log_so_far().find("tierd: warn: " + (dir_.path() / "tierd.toml").string() +
                                    ":6: key 'workloads.watch[0].parent': no cgroup directory"),
            std::string::npos)
      << tierd.log_so_far();
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// The shipped default (discover = "auto") on a machine whose memory is one
// tier: tierd says so under `discovery` and surveys nothing, so a sizeable
// process (this test, 96 MiB touched) is never a workload. Where the machine
// has two tiers or more the test does not apply: it skips, saying so.
TEST_F(Tierd, AutoDiscoveryOnOneTierSurveysNothingAndSaysWhy) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  json::object status = tierd.result("status");
  const std::string one_tier(status.at("policy").at("idle_reason").as_string());
  if (one_tier.empty()) GTEST_SKIP() << "this machine's memory spans two tiers or more";
  constexpr std::size_t kSize = std::size_t{96} << 20;
  void* memory = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  std::memset(memory, 1, kSize);
  const std::int64_t from = status.at("epochs").as_int64();
  ASSERT_TRUE(eventually([&] { return tierd.result("status").at("epochs").as_int64() >= from + 5; },
                         std::chrono::seconds(60)));
  status = tierd.result("status");
  const json::object& discovery = status.at("discovery").as_object();
  EXPECT_EQ(discovery.at("mode").as_string(), "auto");
  EXPECT_FALSE(discovery.at("active").as_bool());
  EXPECT_EQ(discovery.at("idle_reason").as_string(), one_tier);
  EXPECT_EQ(discovery.at("processes").as_int64(), 0);
  EXPECT_EQ(discovery.at("cgroups").as_int64(), 0);
  EXPECT_TRUE(workloads(tierd).empty()) << json::serialize(workloads(tierd));
  const std::string why(status.at("placement").at("kernel_tiering_why").as_string());
  EXPECT_THAT(why, HasSubstr("coexist: tierd leaves the kernel's settings as they are"));
  ::munmap(memory, kSize);

  // Named outright, discovery runs on one tier too: the process is found.
  write_text_file(dir_.path() / "tierd.toml",
                  fast_config("[workloads]\ndiscover = \"processes\"\n"));
  ASSERT_TRUE(ok(tierd.call("reload")));
  memory = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  std::memset(memory, 1, kSize);
  EXPECT_TRUE(eventually(
      [&] { return find_id(workloads(tierd), "found:" + std::to_string(::getpid())).has_value(); },
      std::chrono::seconds(60)))
      << json::serialize(workloads(tierd));
  EXPECT_TRUE(tierd.result("status").at("discovery").at("active").as_bool());
  ::munmap(memory, kSize);
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

TEST_F(Tierd, PolicyPauseAndResume) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  json::object policy = tierd.result("policy.get");
  EXPECT_EQ(policy.at("name").as_string(), "balanced");  // the default
  ASSERT_FALSE(policy.at("available").as_array().empty());
  EXPECT_EQ(code(tierd.call("policy.set", {{"name", "oracle"}})), "not_found");
  EXPECT_EQ(code(tierd.call("policy.set", {{"name", "static"}, {"params", {{"x", 1}}}})),
            "bad_request");
  EXPECT_TRUE(ok(tierd.call("policy.set", {{"name", "static"}})));
  // Ticks keep coming, each timed.
  const auto ticks = tierd.result("status").at("policy").at("ticks").to_number<std::uint64_t>();
  EXPECT_TRUE(eventually([&] {
    return tierd.result("status").at("policy").at("ticks").to_number<std::uint64_t>() >= ticks + 2;
  }));

  EXPECT_EQ(tierd.result("pause").at("paused").as_bool(), true);
  EXPECT_EQ(tierd.result("status").at("state").as_string(), "paused");
  EXPECT_EQ(tierd.result("resume").at("paused").as_bool(), false);
  EXPECT_EQ(tierd.result("status").at("state").as_string(), "running");
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// Several requests on one connection are answered in order; bad ones get an
// error reply without closing it.
TEST_F(Tierd, OneConnectionCarriesManyRequests) {
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  ControlClient client(tierd.socket());
  EXPECT_TRUE(ok(client.call("status")));
  EXPECT_EQ(code(json::parse(client.exchange("{nope")).as_object()), "bad_request");
  EXPECT_EQ(code(client.call("no.such.method")), "unknown_method");
  EXPECT_EQ(code(json::parse(client.exchange(R"({"version":1,"method":"status","params":[1]})"))
                     .as_object()),
            "bad_request");
  EXPECT_TRUE(ok(client.call("topology")));
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

TEST_F(Tierd, MetricsAreServedAndPassPromtool) {
  TierdInstance tierd(dir_.path(), fast_config(), {"--metrics", "127.0.0.1:0"});
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Process sleeper({"sleep", "1000"});
  ASSERT_TRUE(ok(tierd.call("workloads.register", {{"pid", sleeper.pid()}, {"name", "napper"}})));
  const std::string address =
      std::string(tierd.result("status").at("config").at("metrics").as_string());
  ASSERT_NE(address, "off");
  const fs::path scrape = dir_.path() / "scrape.txt";
  const std::string host = address.substr(0, address.rfind(':'));
  const auto port = static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
  ASSERT_TRUE(eventually([&] {
    HttpResponse response = http_get(host, port, "/metrics");
    write_text_file(scrape, response.body);
    return response.body.find("tier_workload_resident_bytes{") != std::string::npos;
  })) << read_text_file(scrape);
  const std::string text = read_text_file(scrape);
  EXPECT_NE(text.find("tier_node_memory_bytes{"), std::string::npos);
  EXPECT_NE(text.find("workload=\"pid:" + std::to_string(sleeper.pid()) + "\""), std::string::npos);
  EXPECT_NE(text.find("tier_policy_tick_seconds_count"), std::string::npos);
  CommandResult promtool = run_command({"sh", "-c", "promtool check metrics < " + scrape.string()});
  EXPECT_EQ(promtool.exit_code, 0) << promtool.out << promtool.err;
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// Heat of a process that keeps faulting fresh pages: the perf software-fault
// source sees them, run on tierd's worker while the loop keeps answering.
TEST_F(Tierd, HeatOfAProcessRunsOnTheWorkerAndReturnsItsReport) {
  if (::geteuid() != 0) GTEST_SKIP() << "heat sources need root";
  TierdInstance tierd(dir_.path(), fast_config());
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Toucher toucher;
  std::optional<json::object> reply;
  std::thread asker([&] {
    reply =
        tierd.call("heat", {{"pid", toucher.pid}, {"duration_ms", 3000}, {"source", "perf-fault"}});
  });
  // Waits for the collection to be running (tierd logs it once the worker is
  // claimed), not for a guessed time; the collection then lasts 3 s.
  const std::string started = "heat: collecting pid " + std::to_string(toucher.pid);
  if (!eventually([&] { return tierd.log_so_far().find(started) != std::string::npos; })) {
    asker.join();  // a joinable thread must not be destroyed
    FAIL() << "no '" << started << "' in 10 s: " << tierd.log_so_far();
  }
  // The loop is free while the collection runs.
  EXPECT_TRUE(ok(tierd.call("status")));
  EXPECT_EQ(code(tierd.call("heat", {{"pid", toucher.pid}})), "conflict");
  asker.join();
  ASSERT_TRUE(reply && ok(*reply))
      << (reply ? json::serialize(*reply) : "no reply") << tierd.log_so_far();
  const json::object& report = reply->at("result").as_object();
  EXPECT_EQ(report.at("pid").as_int64(), toucher.pid);
  EXPECT_EQ(report.at("source").as_string(), "perf-fault");
  EXPECT_GE(report.at("duration_s").to_number<double>(), 1.0);
  // 1024 faults per pass, thousands of passes: far more than 100 samples.
  EXPECT_GT(report.at("samples").to_number<std::uint64_t>(), 100u) << json::serialize(report);
  EXPECT_FALSE(report.at("hot").as_array().empty());
  EXPECT_EQ(code(tierd.call("heat", {{"pid", toucher.pid}, {"source", "pebs"}})), "bad_request");
  EXPECT_EQ(code(tierd.call("heat", {})), "bad_request");
  EXPECT_EQ(tierd.stop().exit_code, 0);
}

// Placement on a live process: the worker keeps a heat source on the
// registered workload, and status shows its samples, its 2 MiB regions and
// the heat-weighted fast-tier share (1.0 here: every node of a one-node
// machine is tier 0). A source that cannot start is reported per workload and
// the workload is still placed on residency alone.
TEST_F(Tierd, RegisteredWorkloadGetsContinuousHeatAndRegions) {
  if (::geteuid() != 0) GTEST_SKIP() << "heat sources need root";
  TierdInstance tierd(dir_.path(), fast_config("[placement]\nkernel_tiering = \"observe\"\n"
                                               "heat_source = \"perf-fault\"\n"));
  ASSERT_TRUE(tierd.start()) << tierd.log_so_far();
  Toucher toucher;
  ASSERT_TRUE(ok(tierd.call("workloads.register", {{"pid", toucher.pid}})));
  json::object seen;
  ASSERT_TRUE(eventually([&] {
    const json::object status = tierd.result("status");
    const json::value& list = status.at("placement").at("workloads");
    if (list.as_array().empty()) return false;
    seen = list.at(0).as_object();
    return seen.contains("epoch_samples") && seen.at("epoch_samples").to_number<double>() > 0 &&
           seen.at("regions").to_number<double>() > 0 && seen.at("heat_fast_share").is_number();
  })) << json::serialize(seen)
      << tierd.log_so_far();
  EXPECT_EQ(seen.at("heat_source").as_string(), "perf-fault");
  EXPECT_EQ(seen.at("heat_fast_share").to_number<double>(), 1.0);
  EXPECT_EQ(seen.at("promoted_bytes").to_number<double>(), 0);
  EXPECT_EQ(tierd.stop().exit_code, 0);

  // A source this machine lacks: reported, the workload still gets regions.
  CommandResult sources = run_command({std::string(TIER_BIN_DIR) + "/tierd", "--list-sources"});
  std::string missing;
  for (const char* name : {"pmu", "idle-page", "soft-dirty", "damon"}) {
    const std::size_t at = sources.out.find(std::string("\n") + name + " ");
    if (at != std::string::npos && sources.out.substr(at, 40).find(" no ") != std::string::npos) {
      missing = name;
      break;
    }
  }
  if (missing.empty()) GTEST_SKIP() << "every heat source is available here";
  TempDir second_dir{"tierd-e2e"};
  TierdInstance second(second_dir.path(),
                       fast_config("[placement]\nheat_source = \"" + missing + "\"\n"));
  ASSERT_TRUE(second.start()) << second.log_so_far();
  ASSERT_TRUE(ok(second.call("workloads.register", {{"pid", toucher.pid}})));
  ASSERT_TRUE(eventually([&] {
    const json::object status = second.result("status");
    const json::value& list = status.at("placement").at("workloads");
    if (list.as_array().empty()) return false;
    seen = list.at(0).as_object();
    return seen.contains("heat_error") && seen.at("regions").to_number<double>() > 0;
  })) << json::serialize(seen)
      << second.log_so_far();
  EXPECT_NE(std::string(seen.at("heat_error").as_string()).find(missing), std::string::npos)
      << json::serialize(seen);
  EXPECT_EQ(second.stop().exit_code, 0);
}

}  // namespace
}  // namespace tier::test
