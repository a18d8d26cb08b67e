// Discovery (workloads.discover) against fixture /proc and cgroup trees:
// which processes and leaf cgroups become workloads, the class each one's
// own scheduling signals give it, the hysteresis at the threshold, and
// explicit workloads (registrations, rules, watches) winning.
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "workloads/discovery.hpp"
#include "workloads/listing.hpp"
#include "workloads/procfs.hpp"
#include "workloads/registry.hpp"
#include "workloads_fixture.hpp"

namespace {

using ::testing::HasSubstr;
using tier::test::FakeSystem;
using tier::test::proc;
using tierd::DiscoverMode;
using tierd::DiscoverySettings;
using tierd::Registry;
using tierd::Workload;
using tierd::WorkloadClass;
using tierd::WorkloadSource;

constexpr pid_t kSelf = 999;

DiscoverySettings discover(DiscoverMode mode, std::uint64_t min_mib = 64) {
  DiscoverySettings settings;
  settings.mode = mode;
  settings.min_bytes = min_mib << 20;
  settings.self = kSelf;
  return settings;
}

std::vector<std::string> ids_from(const Registry& registry, WorkloadSource source) {
  std::vector<std::string> ids;
  for (const Workload& w : registry.workloads()) {
    if (w.source == source) ids.push_back(w.id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string reason_for(const Registry::RefreshResult& result, const std::string& id) {
  for (const auto& d : result.dropped) {
    if (d.workload.id == id) return d.reason;
  }
  return "<not dropped>";
}

TEST(ProcStat, NiceAndSchedulingPolicy) {
  auto stat = tierd::detail::parse_proc_stat(FakeSystem::stat_line(proc(7).niced(-5).scheduled(3)));
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->nice, -5);
  EXPECT_EQ(stat->policy, 3u);
  // A line cut after field 22 (the registry's older fixtures): policy 0.
  auto short_line =
      tierd::detail::parse_proc_stat("7 (a) S 1 1 1 0 -1 4194560 10 0 0 0 5 3 0 0 20 7 1 0 1000\n");
  ASSERT_TRUE(short_line);
  EXPECT_EQ(short_line->nice, 7);
  EXPECT_EQ(short_line->policy, 0u);
}

TEST(Discovery, ProcessesAtTheThresholdNotSmallOnesKernelThreadsOrTierdItself) {
  FakeSystem sys;
  sys.add_process(proc(100).named("redis-server").anon_mib(128));
  sys.add_process(proc(101).named("sshd").anon_mib(16));
  sys.add_process(proc(2).named("kthreadd").kernel_thread());
  sys.add_process(proc(kSelf).named("tierd").anon_mib(512));
  sys.add_process(proc(102).named("gone").anon_mib(900).in_state('Z'));
  Registry registry(sys.root());
  registry.configure_discovery(discover(DiscoverMode::processes));
  auto result = registry.refresh(50);
  ASSERT_EQ(result.added.size(), 1u);
  const Workload& w = result.added[0];
  EXPECT_EQ(w.id, "found:100");
  EXPECT_EQ(w.name, "redis-server");
  EXPECT_EQ(w.source, WorkloadSource::discovered);
  ASSERT_TRUE(w.pid);
  EXPECT_EQ(*w.pid, 100);
  EXPECT_EQ(w.start_time, 1000u);
  EXPECT_EQ(w.registered_unix_s, 50);
  EXPECT_EQ(w.workload_class, WorkloadClass::normal);
  EXPECT_THAT(w.found, HasSubstr("anonymous memory 128 MiB (found at 64 MiB)"));
  EXPECT_EQ(registry.discovery_counts().found, 1u);
  EXPECT_EQ(registry.discovery_counts().processes, 4u);  // all but tierd itself
  EXPECT_FALSE(registry.discovery_counts().by_cgroup);
  // A second pass adds nothing new.
  EXPECT_TRUE(registry.refresh(51).added.empty());
}

// At fleet scale the survey reads a sizeable process's stat once, then only
// its statm: with the stat unreadable the process is still found under the
// name it had, until the memo's age runs out (kRestatEvery surveys).
TEST(Discovery, ASizeableProcessesStatIsReadOnceEveryFewSurveys) {
  FakeSystem sys;
  sys.add_process(proc(100).named("redis-server").anon_mib(128));
  tierd::SurveyMemo memo;
  const std::uint64_t floor = std::uint64_t{64} << 20;
  tierd::Survey first =
      tierd::survey(sys.root(), DiscoverMode::processes, floor, kSelf, 4096, &memo);
  ASSERT_EQ(first.units.size(), 1u);
  std::filesystem::remove(sys.host("/proc/100/stat"));
  for (unsigned i = 1; i < tierd::kRestatEvery; ++i) {
    tierd::Survey again =
        tierd::survey(sys.root(), DiscoverMode::processes, floor, kSelf, 4096, &memo);
    ASSERT_EQ(again.units.size(), 1u) << "survey " << i;
    EXPECT_EQ(again.units[0].name, "redis-server");
    EXPECT_EQ(again.units[0].start_time, 1000u);
  }
  // Its turn to be read again: now unreadable, so no longer a unit.
  EXPECT_TRUE(
      tierd::survey(sys.root(), DiscoverMode::processes, floor, kSelf, 4096, &memo).units.empty());
  // Without a memo every survey reads it.
  EXPECT_TRUE(tierd::survey(sys.root(), DiscoverMode::processes, floor, kSelf, 4096).units.empty());
}

// At fleet scale a settled process's statm is read in its turn only (1 in
// kStatmEvery surveys, spread by pid); a young one every survey. With its
// statm unreadable, a settled sizeable process is still a unit by its last
// figure until its turn comes.
TEST(Discovery, ASettledProcessesStatmIsReadInItsTurn) {
  FakeSystem sys;
  sys.add_process(proc(101).named("cache").anon_mib(128));
  tierd::SurveyMemo memo;
  const std::uint64_t floor = std::uint64_t{64} << 20;
  auto units = [&] {
    return tierd::survey(sys.root(), DiscoverMode::processes, floor, kSelf, 4096, &memo)
        .units.size();
  };
  for (std::uint64_t i = 0; i < tierd::kYoungSurveys; ++i) ASSERT_EQ(units(), 1u) << i;
  std::filesystem::remove(sys.host("/proc/101/statm"));
  unsigned kept = 0;
  while (units() == 1u) {
    ++kept;
    ASSERT_LT(kept, tierd::kStatmEvery) << "never read again";
  }
  EXPECT_GE(kept, 1u);  // pid 101's turn is not the first settled survey
  // A young process is read at once: found in the survey that first lists it.
  sys.add_process(proc(102).named("new").anon_mib(128));
  EXPECT_EQ(units(), 1u);
}

TEST(Discovery, ClassFromTheProcessesOwnSchedulingSignals) {
  FakeSystem sys;
  sys.add_process(proc(100).named("make").anon_mib(100).niced(10));
  sys.add_process(proc(101).named("train").anon_mib(100).scheduled(3));  // SCHED_BATCH
  sys.add_process(proc(102).named("spin").anon_mib(100).scheduled(5));   // SCHED_IDLE
  sys.add_process(proc(103).named("db").anon_mib(100).niced(-5));
  sys.add_process(proc(104).named("audio").anon_mib(100).scheduled(1));  // SCHED_FIFO
  sys.add_process(proc(105).named("web").anon_mib(100));
  Registry registry(sys.root());
  registry.configure_discovery(discover(DiscoverMode::processes));
  registry.refresh(0);
  std::map<std::string, std::pair<WorkloadClass, std::string>> got;
  for (const Workload& w : registry.workloads()) got[w.name] = {w.workload_class, w.found};
  EXPECT_EQ(got["make"].first, WorkloadClass::offline);
  EXPECT_THAT(got["make"].second, HasSubstr("nice 10"));
  EXPECT_EQ(got["train"].first, WorkloadClass::offline);
  EXPECT_THAT(got["train"].second, HasSubstr("SCHED_BATCH"));
  EXPECT_EQ(got["spin"].first, WorkloadClass::offline);
  EXPECT_EQ(got["db"].first, WorkloadClass::online);
  EXPECT_EQ(got["audio"].first, WorkloadClass::online);
  EXPECT_EQ(got["web"].first, WorkloadClass::normal);

  // A renice shows when the process's stat is read again: within
  // kRestatEvery passes (the survey's memo spares a fleet server's thousands
  // of stat reads every epoch).
  sys.add_process(proc(105).named("web").anon_mib(100).niced(5));
  auto web_class = [&] {
    for (const Workload& w : registry.workloads()) {
      if (w.name == "web") return w.workload_class;
    }
    return WorkloadClass::normal;
  };
  unsigned passes = 0;
  while (web_class() != WorkloadClass::offline && passes < tierd::kRestatEvery) {
    registry.refresh(1 + passes);
    ++passes;
  }
  EXPECT_EQ(web_class(), WorkloadClass::offline) << "after " << passes << " passes";
}

TEST(Discovery, KeptAboveHalfTheThresholdDroppedBelowExitedAndReusedDropped) {
  FakeSystem sys;
  sys.add_process(proc(100).named("a").anon_mib(128));
  sys.add_process(proc(101).named("b").anon_mib(128));
  sys.add_process(proc(102).named("c").anon_mib(128));
  auto last_pid = [&](pid_t pid) {
    std::ofstream(sys.host("/proc/loadavg")) << "0.20 0.18 0.12 1/80 " << pid << "\n";
  };
  last_pid(102);
  Registry registry(sys.root());
  registry.configure_discovery(discover(DiscoverMode::processes));
  ASSERT_EQ(registry.refresh(0).added.size(), 3u);

  sys.add_process(proc(100).named("a").anon_mib(40));  // under 64, over 32: stays
  sys.add_process(proc(101).named("b").anon_mib(20));  // under 32: goes
  sys.remove_process(102);
  auto result = registry.refresh(1);
  EXPECT_EQ(reason_for(result, "found:100"), "<not dropped>");
  EXPECT_EQ(reason_for(result, "found:101"),
            "anonymous memory under 32 MiB (half the discovery threshold)");
  EXPECT_EQ(reason_for(result, "found:102"), "process 102 exited");
  EXPECT_EQ(ids_from(registry, WorkloadSource::discovered), std::vector<std::string>{"found:100"});

  // Under 64 MiB a process is not found again, however long it stays there.
  sys.add_process(proc(101).named("b").anon_mib(40));
  EXPECT_TRUE(registry.refresh(2).added.empty());

  // The pid reused by a new process (the kernel's pid counter wrapped to
  // 100): the old workload goes, the new one is found.
  sys.add_process(proc(100).named("a2").anon_mib(128).started(7777));
  last_pid(100);
  result = registry.refresh(3);
  EXPECT_EQ(reason_for(result, "found:100"), "pid 100 reused by another process");
  ASSERT_EQ(result.added.size(), 1u);
  EXPECT_EQ(result.added[0].name, "a2");
  EXPECT_EQ(result.added[0].start_time, 7777u);
}

TEST(Discovery, RegistrationsAndRulesWin) {
  FakeSystem sys;
  sys.add_process(proc(100).named("redis-server").anon_mib(128));
  sys.add_process(proc(101).named("java").anon_mib(128));
  Registry registry(sys.root());
  registry.configure({}, {tier::test::rule("redis-server", WorkloadClass::online)});
  registry.configure_discovery(discover(DiscoverMode::processes));
  registry.refresh(0);
  EXPECT_EQ(ids_from(registry, WorkloadSource::rule), std::vector<std::string>{"rule:100"});
  EXPECT_EQ(ids_from(registry, WorkloadSource::discovered), std::vector<std::string>{"found:101"});

  // Registered over the API: the discovered workload goes at the next pass.
  tierd::RegisterRequest request;
  request.pid = 101;
  registry.register_workload(request, 1);
  auto result = registry.refresh(2);
  EXPECT_EQ(reason_for(result, "found:101"), "now covered by workload pid:101");
  EXPECT_TRUE(ids_from(registry, WorkloadSource::discovered).empty());
  EXPECT_EQ(ids_from(registry, WorkloadSource::api), std::vector<std::string>{"pid:101"});
}

TEST(Discovery, TurnedOffDropsWhatItFoundAndTheStateFileNeverHoldsIt) {
  FakeSystem sys;
  sys.add_process(proc(100).named("a").anon_mib(128));
  sys.add_process(proc(101).named("b").anon_mib(8));
  Registry registry(sys.root());
  tierd::RegisterRequest request;
  request.pid = 101;
  registry.register_workload(request, 0);
  registry.configure_discovery(discover(DiscoverMode::processes));
  registry.refresh(0);
  ASSERT_EQ(registry.workloads().size(), 2u);
  const auto saved = registry.to_json().as_object().at("workloads").as_array();
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].as_object().at("id").as_string(), "pid:101");
  // Its JSON says how it was found.
  for (const Workload& w : registry.workloads()) {
    auto json = tierd::workload_json(w);
    EXPECT_EQ(json.contains("found"), w.source == WorkloadSource::discovered) << w.id;
  }

  registry.configure_discovery(discover(DiscoverMode::off));
  auto result = registry.refresh(1);
  EXPECT_EQ(reason_for(result, "found:100"), "discovery turned off in the configuration");
  EXPECT_EQ(registry.workloads().size(), 1u);
}

// A systemd-shaped machine: services and scopes are leaf cgroups; the root
// cgroup holds kernel threads and a process or two of its own.
class CgroupDiscovery : public ::testing::Test {
 protected:
  void SetUp() override {
    sys.unified_root("2\n300\n");
    sys.add_process(proc(2).named("kthreadd").kernel_thread());
    sys.add_process(proc(300).named("early").anon_mib(100).in_cgroup("/"));
    sys.add_cgroup("/sys/fs/cgroup/system.slice");
    sys.add_cgroup("/sys/fs/cgroup/system.slice/db.service", "100\n101\n");
    sys.cgroup_file("/sys/fs/cgroup/system.slice/db.service", "memory.stat",
                    "anon 157286400\nfile 4096\nshmem 52428800\n");
    sys.add_process(
        proc(100).named("postgres").anon_mib(150).in_cgroup("/system.slice/db.service"));
    sys.add_process(proc(101).named("postgres").anon_mib(50).in_cgroup("/system.slice/db.service"));
    sys.add_cgroup("/sys/fs/cgroup/system.slice/cron.service", "110\n");
    sys.cgroup_file("/sys/fs/cgroup/system.slice/cron.service", "memory.stat", "anon 1048576\n");
    sys.add_process(proc(110).named("cron").anon_mib(1).in_cgroup("/system.slice/cron.service"));
    // No memory controller here: the processes' statm is summed (2 x 40 MiB).
    sys.add_cgroup("/sys/fs/cgroup/batch.slice");
    sys.cgroup_file("/sys/fs/cgroup/batch.slice", "cpu.weight", "20\n");
    sys.add_cgroup("/sys/fs/cgroup/batch.slice/etl.service", "120\n121\n");
    sys.add_process(proc(120).named("etl").anon_mib(40).in_cgroup("/batch.slice/etl.service"));
    sys.add_process(proc(121).named("etl").anon_mib(40).in_cgroup("/batch.slice/etl.service"));
    // An empty leaf: nothing to place, whatever memory.stat says.
    sys.add_cgroup("/sys/fs/cgroup/system.slice/idle.service", "");
    sys.cgroup_file("/sys/fs/cgroup/system.slice/idle.service", "memory.stat", "anon 999999999\n");
  }
  FakeSystem sys;
};

TEST_F(CgroupDiscovery, LeafCgroupsAreTheUnitsWithTheirClassFromCpuWeight) {
  Registry registry(sys.root());
  registry.configure_discovery(discover(DiscoverMode::automatic));
  registry.refresh(0);
  EXPECT_EQ(
      ids_from(registry, WorkloadSource::discovered),
      (std::vector<std::string>{"found:/sys/fs/cgroup/batch.slice/etl.service",
                                "found:/sys/fs/cgroup/system.slice/db.service", "found:300"}));
  for (const Workload& w : registry.workloads()) {
    if (w.id == "found:/sys/fs/cgroup/batch.slice/etl.service") {
      EXPECT_EQ(w.workload_class, WorkloadClass::offline);
      EXPECT_THAT(w.found, HasSubstr("anonymous memory of its processes 80 MiB"));
      EXPECT_THAT(w.found, HasSubstr("cpu.weight 20 on /sys/fs/cgroup/batch.slice"));
      EXPECT_EQ(w.cgroup, "/sys/fs/cgroup/batch.slice/etl.service");
      EXPECT_FALSE(w.pid);
    }
    if (w.id == "found:/sys/fs/cgroup/system.slice/db.service") {
      EXPECT_EQ(w.workload_class, WorkloadClass::normal);
      EXPECT_THAT(w.found, HasSubstr("anon + shmem memory 200 MiB"));  // 150 + 50
      EXPECT_EQ(w.name, "db.service");
    }
  }
  const auto& counts = registry.discovery_counts();
  EXPECT_TRUE(counts.by_cgroup);
  EXPECT_EQ(counts.cgroups, 4u);    // db, cron, idle, etl
  EXPECT_EQ(counts.processes, 2u);  // the root cgroup's own
  EXPECT_EQ(counts.found, 3u);

  // By process instead: each process is judged alone (the etl pair is 40 MiB each).
  Registry by_process(sys.root());
  by_process.configure_discovery(discover(DiscoverMode::processes));
  by_process.refresh(0);
  EXPECT_EQ(ids_from(by_process, WorkloadSource::discovered),
            (std::vector<std::string>{"found:100", "found:300"}));
}

TEST_F(CgroupDiscovery, IdleAndHighWeightAndKubepodsQos) {
  sys.cgroup_file("/sys/fs/cgroup/system.slice/db.service", "cpu.weight", "500\n");
  sys.cgroup_file("/sys/fs/cgroup/batch.slice/etl.service", "cpu.idle", "1\n");
  auto db = tierd::class_of_cgroup(sys.root(), "/sys/fs/cgroup/system.slice/db.service");
  EXPECT_EQ(db.cls, WorkloadClass::online);
  EXPECT_THAT(db.why, HasSubstr("cpu.weight 500"));
  auto etl = tierd::class_of_cgroup(sys.root(), "/sys/fs/cgroup/batch.slice/etl.service");
  EXPECT_EQ(etl.cls, WorkloadClass::offline);
  EXPECT_THAT(etl.why, HasSubstr("cpu.idle 1"));
  EXPECT_EQ(tierd::class_of_cgroup(
                sys.root(),
                "/sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-"
                "pod1.slice/cri-containerd-abc.scope")
                .cls,
            WorkloadClass::offline);
  EXPECT_EQ(tierd::class_of_cgroup(sys.root(), "/sys/fs/cgroup/kubepods/pod1/abc").cls,
            WorkloadClass::online);
  EXPECT_EQ(tierd::class_of_cgroup(sys.root(), "/sys/fs/cgroup/system.slice/cron.service").cls,
            WorkloadClass::normal);
}

TEST_F(CgroupDiscovery, WatchedCgroupsAndRegisteredProcessesCoverTheirUnits) {
  Registry registry(sys.root());
  // A watch makes batch.slice's children workloads of its own.
  registry.configure({tier::test::watch("/sys/fs/cgroup/batch.slice", WorkloadClass::offline)}, {});
  registry.configure_discovery(discover(DiscoverMode::automatic));
  registry.refresh(0);
  EXPECT_EQ(ids_from(registry, WorkloadSource::cgroup),
            std::vector<std::string>{"cgroup:/sys/fs/cgroup/batch.slice/etl.service"});
  EXPECT_EQ(
      ids_from(registry, WorkloadSource::discovered),
      (std::vector<std::string>{"found:/sys/fs/cgroup/system.slice/db.service", "found:300"}));
  // One of db.service's processes registered: the whole service is no
  // longer discovery's (its pages would be placed twice).
  tierd::RegisterRequest request;
  request.pid = 101;
  registry.register_workload(request, 1);
  auto result = registry.refresh(2);
  EXPECT_EQ(reason_for(result, "found:/sys/fs/cgroup/system.slice/db.service"),
            "now covered by workload pid:101");
  // The service goes away.
  sys.remove_cgroup("/sys/fs/cgroup/batch.slice/etl.service");
  registry.configure({}, {});
  sys.add_cgroup("/sys/fs/cgroup/batch.slice/etl.service", "120\n121\n");
  result = registry.refresh(3);
  ASSERT_EQ(result.added.size(), 1u);
  EXPECT_EQ(result.added[0].id, "found:/sys/fs/cgroup/batch.slice/etl.service");
  sys.remove_cgroup("/sys/fs/cgroup/batch.slice/etl.service");
  result = registry.refresh(4);
  EXPECT_EQ(reason_for(result, "found:/sys/fs/cgroup/batch.slice/etl.service"),
            "cgroup /sys/fs/cgroup/batch.slice/etl.service removed");
}

TEST(Discovery, CgroupsModeWithoutAUnifiedTreeFindsNothing) {
  FakeSystem sys;
  sys.add_process(proc(100).named("a").anon_mib(128));
  Registry registry(sys.root());
  registry.configure_discovery(discover(DiscoverMode::cgroups));
  EXPECT_TRUE(registry.refresh(0).added.empty());
  // auto falls back to processes there.
  registry.configure_discovery(discover(DiscoverMode::automatic));
  EXPECT_EQ(registry.refresh(1).added.size(), 1u);
}

// The real kernel's statm and stat: a child with 96 MiB of anonymous memory,
// reniced (it sends its nice value), is found with that memory and class offline; reaped, it is
// dropped. It tells the parent over a pipe once its memory is touched, so
// nothing here waits on time.
TEST(DiscoveryLive, FindsARealSizeableChildAndDropsItOnceReaped) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::size_t bytes = std::size_t{96} << 20;
    void* memory =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) ::_exit(1);
    std::memset(memory, 1, bytes);
    // At least nice 10 (more when the test itself runs niced).
    errno = 0;
    const int nice = ::nice(10);
    if (nice == -1 && errno != 0) ::_exit(1);
    const auto byte = static_cast<char>(nice);
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte = 0;
  const bool touched = ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);
  auto reap = [&] {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  };
  if (!touched) {
    reap();
    FAIL() << "the child did not get its memory";
  }

  Registry registry(tier::SysRoot("/"));
  DiscoverySettings settings = discover(DiscoverMode::processes);
  settings.self = ::getpid();
  registry.configure_discovery(settings);
  registry.refresh(0);
  const std::string id = "found:" + std::to_string(child);
  const Workload* found = registry.find(id);
  if (found == nullptr) reap();
  ASSERT_NE(found, nullptr) << "child " << child << " not discovered";
  EXPECT_EQ(found->workload_class, WorkloadClass::offline);
  EXPECT_THAT(found->found, HasSubstr("nice " + std::to_string(static_cast<int>(byte))));
  // At least the 96 MiB it wrote (statm's resident - shared).
  std::uint64_t mib = 0;
  std::sscanf(found->found.c_str(), "anonymous memory %lu MiB", &mib);
  EXPECT_GE(mib, 96u) << found->found;
  EXPECT_EQ(registry.find("found:" + std::to_string(::getpid())), nullptr);  // ourselves: never

  reap();
  auto result = registry.refresh(1);
  EXPECT_EQ(reason_for(result, id), "process " + std::to_string(child) + " exited");
}

TEST(Discovery, ModeWords) {
  for (auto mode : {DiscoverMode::off, DiscoverMode::automatic, DiscoverMode::processes,
                    DiscoverMode::cgroups}) {
    EXPECT_EQ(tierd::parse_discover_mode(tierd::to_string(mode)), mode);
  }
  EXPECT_FALSE(tierd::parse_discover_mode("automatic"));
  EXPECT_FALSE(tierd::parse_discover_mode(""));
}

// Between two full listings of /proc (every kListEvery surveys) a survey
// reads the processes it knew and the new pids since the last one
// (/proc/loadavg's last pid), each checked to be a process, not a thread.
TEST(Discovery, NewPidsFromTheLastPidBetweenListings) {
  FakeSystem sys;
  auto last_pid = [&](pid_t pid) {
    std::ofstream(sys.host("/proc/loadavg")) << "0.20 0.18 0.12 1/80 " << pid << "\n";
  };
  sys.add_process(proc(100).named("first").anon_mib(128));
  last_pid(100);
  tierd::SurveyMemo memo;
  const std::uint64_t floor = std::uint64_t{64} << 20;
  auto names = [&] {
    std::vector<std::string> out;
    for (const auto& unit :
         tierd::survey(sys.root(), DiscoverMode::processes, floor, kSelf, 4096, &memo).units) {
      out.push_back(unit.name);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(), (V{"first"}));  // the first survey lists /proc
  sys.add_process(proc(101).named("second").anon_mib(128));
  sys.add_process(proc(102).named("worker").anon_mib(128).thread_of(100));
  last_pid(102);
  EXPECT_EQ(names(), (V{"first", "second"}));  // 101 probed; 102 is a thread
  // A pid the last-pid window does not cover waits for the next listing.
  sys.add_process(proc(90).named("late").anon_mib(128));
  std::uint64_t surveys = 2;
  for (; surveys % tierd::kListEvery != 0; ++surveys) {
    EXPECT_EQ(names(), (V{"first", "second"})) << "survey " << surveys;
  }
  EXPECT_THAT(names(), ::testing::Contains("late"));  // found by the listing
  // A settled sizeable process that exits is gone from the next survey,
  // though that survey neither lists /proc nor reads its statm (pid 100's
  // turn comes at survey 12): SysRoot::process_exists, /proc/PID in this
  // tree, kill(pid, 0) on a live system.
  sys.remove_process(100);
  EXPECT_THAT(names(), ::testing::Not(::testing::Contains("first")));
}

// `status` details at most a limit of workloads: every explicit one, then
// the largest discovered ones, in registry order; all of them under the limit.
TEST(Listing, ExplicitOnesAndTheLargestDiscoveredOnesInRegistryOrder) {
  std::vector<Workload> workloads;
  std::map<std::string, std::uint64_t> resident;
  auto add = [&](const std::string& id, WorkloadSource source, std::uint64_t mib) {
    Workload w;
    w.id = id;
    w.source = source;
    workloads.push_back(w);
    resident[id] = mib << 20;
  };
  add("found:1", WorkloadSource::discovered, 10);
  add("pid:2", WorkloadSource::api, 1);
  add("found:3", WorkloadSource::discovered, 300);
  add("found:4", WorkloadSource::discovered, 20);
  add("rule:5", WorkloadSource::rule, 0);
  add("found:6", WorkloadSource::discovered, 300);
  auto ids = [&](std::size_t limit) {
    std::vector<std::string> out;
    for (const Workload* w : tierd::listed_workloads(
             workloads, limit, [&](const Workload& one) { return resident.at(one.id); })) {
      out.push_back(w->id);
    }
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(ids(6), (V{"found:1", "pid:2", "found:3", "found:4", "rule:5", "found:6"}));
  EXPECT_EQ(ids(4), (V{"pid:2", "found:3", "rule:5", "found:6"}));
  EXPECT_EQ(ids(3), (V{"pid:2", "found:3", "rule:5"}));  // a tie: registry order
  EXPECT_EQ(ids(1), (V{"pid:2", "rule:5"}));             // explicit ones are always listed
}

}  // namespace
