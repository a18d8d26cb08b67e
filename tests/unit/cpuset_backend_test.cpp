// The cpuset backends on this host's kernel: real v1 cpusets under a parent
// named tier-test-<pid> (removed by RAII even when a test fails), real
// affinity and migrate_pages. Outcomes are read back from the kernel:
// /proc/PID/task/TID/status Cpus_allowed_list of every thread.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test_support.hpp"
#include "tier/cpu/cpuset_backend.hpp"

namespace tier::cpu {
namespace {

namespace fs = std::filesystem;
using test::proc_status_field;

#define SKIP_UNLESS_ROOT() \
  if (geteuid() != 0) GTEST_SKIP() << "needs root: creates cgroups and moves tasks"

std::string unique_parent() {
  return "tier-test-" + std::to_string(getpid());
}

CpusetTarget T(const char* cpus, const char* mems, bool exclusive = false) {
  return {*CpuList::parse(cpus), *CpuList::parse(mems), exclusive};
}

/// A forked child with two threads, both blocked; killed and reaped on scope exit.
class TwoThreadChild {
 public:
  TwoThreadChild() {
    pid_ = fork();
    if (pid_ == 0) {
      std::thread second([] { pause(); });
      pause();
      _exit(0);
    }
    for (int i = 0; i < 500 && threads().size() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ~TwoThreadChild() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  std::vector<std::string> threads() const {
    std::vector<std::string> tids;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid_) + "/task", ec)) {
      tids.push_back(e.path().filename().string());
    }
    return tids;
  }
  /// Cpus_allowed_list of every thread ("1" each), in thread order.
  std::vector<std::string> cpus_allowed() const {
    std::vector<std::string> out;
    for (const auto& tid : threads()) {
      out.push_back(proc_status_field("/proc/" + std::to_string(pid_) + "/task/" + tid + "/status",
                                      "Cpus_allowed_list"));
    }
    return out;
  }

 private:
  pid_t pid_ = -1;
};

/// Owns a backend; teardown on scope exit, then removes anything left under
/// the test parent so the host stays clean even after a failed assertion.
class BackendGuard {
 public:
  BackendGuard(BackendChoice choice, std::string parent_dir)
      : choice_(std::move(choice)), parent_dir_(std::move(parent_dir)) {}
  ~BackendGuard() {
    choice_.backend->teardown();
    std::error_code ec;
    if (parent_dir_.empty() || !fs::exists(parent_dir_, ec)) return;
    for (const auto& e : fs::directory_iterator(parent_dir_, ec)) {
      if (e.is_directory(ec)) ::rmdir(e.path().c_str());
    }
    ::rmdir(parent_dir_.c_str());
  }
  CpusetBackend& operator*() { return *choice_.backend; }
  CpusetBackend* operator->() { return choice_.backend.get(); }
  const BackendChoice& choice() const { return choice_; }

 private:
  BackendChoice choice_;
  std::string parent_dir_;
};

const std::string kV1 = "/sys/fs/cgroup/cpuset";

class CgroupV1Test : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_ROOT();
    if (!fs::exists(kV1 + "/cpuset.cpus")) GTEST_SKIP() << "no v1 cpuset at " << kV1;
    if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs";
  }
  std::string parent_dir() const { return kV1 + "/" + unique_parent(); }
  std::string read(const std::string& group, const std::string& file) const {
    return tier::test::read_text_file(parent_dir() + "/" + group + "/" + file);
  }
};

TEST_F(CgroupV1Test, DetectionPicksV1AndSaysWhyNotV2) {
  BackendGuard backend(choose_cpuset_backend(SysRoot("/"), unique_parent()), parent_dir());
  EXPECT_EQ(backend->kind(), CpusetBackendKind::cgroup_v1);
  EXPECT_STREQ(to_string(backend->kind()), "cgroup-v1");
  EXPECT_EQ(backend->describe(), "cgroup v1 cpuset, groups under " + parent_dir());
  ASSERT_EQ(backend.choice().reasons.size(), 1u);
  std::string controllers =
      SysRoot("/").read("/sys/fs/cgroup/unified/cgroup.controllers").value_or("?");
  EXPECT_EQ(backend.choice().reasons[0],
            "cgroup v2 at /sys/fs/cgroup/unified has no cpuset controller (controllers: " +
                controllers + ")");
}

TEST_F(CgroupV1Test, GroupsConfineEveryThreadAndFollowALiveResize) {
  BackendGuard backend(choose_cpuset_backend(SysRoot("/"), unique_parent()), parent_dir());
  ASSERT_EQ(backend->kind(), CpusetBackendKind::cgroup_v1);
  backend->apply({{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}});
  EXPECT_EQ(read("", "cpuset.cpus"), "0-1\n");
  EXPECT_EQ(read("shared", "cpuset.cpus"), "0\n");
  EXPECT_EQ(read("exclusive-x", "cpuset.cpus"), "1\n");
  // Exclusive in the kernel, or said why not.
  if (backend->notes().empty()) {
    EXPECT_EQ(read("exclusive-x", "cpuset.cpu_exclusive"), "1\n");
  } else {
    EXPECT_NE(backend->notes()[0].find("not enforced by the kernel"), std::string::npos);
  }

  TwoThreadChild child;
  ASSERT_EQ(child.threads().size(), 2u);
  backend->attach("exclusive-x", child.pid());
  EXPECT_EQ(child.cpus_allowed(), (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(backend->members("exclusive-x"), std::vector<pid_t>{child.pid()});
  EXPECT_TRUE(backend->members("shared").empty());

  backend->apply({{"shared", T("1", "0")}, {"exclusive-x", T("0", "0", true)}});
  EXPECT_EQ(child.cpus_allowed(), (std::vector<std::string>{"0", "0"}));
  EXPECT_EQ(read("shared", "cpuset.cpus"), "1\n");
}

TEST_F(CgroupV1Test, OverlappingExclusivePairIsRefusedAndChangesNothing) {
  BackendGuard backend(choose_cpuset_backend(SysRoot("/"), unique_parent()), parent_dir());
  backend->apply({{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}});
  TwoThreadChild child;
  backend->attach("exclusive-x", child.pid());
  try {
    backend->apply({{"exclusive-x", T("0-1", "0", true)}, {"exclusive-y", T("1", "0", true)}});
    ADD_FAILURE() << "overlapping exclusive groups accepted";
  } catch (const CpusetError& e) {
    EXPECT_STREQ(e.what(),
                 "cpuset group 'exclusive-x' refused: exclusive cpus 0-1 overlap group "
                 "'exclusive-y' (cpus 1)");
    EXPECT_FALSE(e.group_gone);
  }
  EXPECT_FALSE(fs::exists(parent_dir() + "/exclusive-y"));
  EXPECT_EQ(read("exclusive-x", "cpuset.cpus"), "1\n");
  EXPECT_EQ(read("shared", "cpuset.cpus"), "0\n");
  EXPECT_EQ(child.cpus_allowed(), (std::vector<std::string>{"1", "1"}));
}

TEST_F(CgroupV1Test, KernelRefusalNamesFileValueAndCause) {
  BackendGuard backend(choose_cpuset_backend(SysRoot("/"), unique_parent()), parent_dir());
  backend->apply({{"shared", T("0", "0")}});
  // An empty group refuses tasks: ENOSPC, and the hint says why.
  ASSERT_EQ(::mkdir((parent_dir() + "/empty").c_str(), 0755), 0);
  std::string procs = parent_dir() + "/empty/cgroup.procs";
  try {
    backend->attach("empty", getpid());
    ADD_FAILURE() << "attach to an empty cpuset accepted";
  } catch (const CpusetError& e) {
    EXPECT_EQ(e.error, ENOSPC);
    EXPECT_EQ(e.path, procs);
    EXPECT_EQ(std::string(e.what()),
              "write '" + std::to_string(getpid()) + "' to " + procs +
                  ": ENOSPC (No space left on device): the group's cpuset.cpus or cpuset.mems "
                  "is empty");
  }
  ::rmdir((parent_dir() + "/empty").c_str());
}

TEST_F(CgroupV1Test, GroupRemovedUnderneathIsReportedAsGone) {
  BackendGuard backend(choose_cpuset_backend(SysRoot("/"), unique_parent()), parent_dir());
  const std::map<std::string, CpusetTarget> layout{{"shared", T("0", "0")},
                                                   {"exclusive-x", T("1", "0", true)}};
  backend->apply(layout);
  TwoThreadChild child;
  backend->attach("shared", child.pid());
  // Someone else moves the task out and removes the group.
  tier::test::write_text_file(parent_dir() + "/cgroup.procs", std::to_string(child.pid()));
  ASSERT_EQ(::rmdir((parent_dir() + "/shared").c_str()), 0);

  try {
    backend->attach("shared", child.pid());
    ADD_FAILURE() << "attach to a removed group accepted";
  } catch (const CpusetError& e) {
    EXPECT_TRUE(e.group_gone) << e.what();
  }
  try {
    backend->apply(layout);
    ADD_FAILURE() << "apply over a removed group did not report it";
  } catch (const CpusetError& e) {
    EXPECT_TRUE(e.group_gone) << e.what();
    EXPECT_NE(std::string(e.what()).find("shared"), std::string::npos) << e.what();
  }
  // Reported once: the next apply recreates the group.
  backend->apply(layout);
  EXPECT_EQ(read("shared", "cpuset.cpus"), "0\n");
}

TEST_F(CgroupV1Test, TeardownRemovesEveryGroupAndReturnsTasksToTheRoot) {
  TwoThreadChild child;
  {
    BackendGuard backend(choose_cpuset_backend(SysRoot("/"), unique_parent()), parent_dir());
    backend->apply({{"shared", T("0", "0")}, {"exclusive-x", T("1", "0", true)}});
    backend->attach("exclusive-x", child.pid());
    backend->apply({{"shared", T("0-1", "0")}});  // exclusive-x removed: task to the parent
    EXPECT_FALSE(fs::exists(parent_dir() + "/exclusive-x"));
    EXPECT_EQ(child.cpus_allowed(), (std::vector<std::string>{"0-1", "0-1"}));
    backend->attach("shared", child.pid());
    backend->teardown();
    EXPECT_FALSE(fs::exists(parent_dir()));
  }
  EXPECT_EQ(tier::test::read_text_file("/proc/" + std::to_string(child.pid()) + "/cpuset"), "/\n");
}

// cpu.max/cpu.weight live in the v2 cpu controller; v1 keeps cpu in its own
// hierarchy, so the v1 backend says why not and writes nothing (the v2 write
// is proven in the emulated machine: tests/vm/scenarios/pools_memory.sh).
TEST_F(CgroupV1Test, CpuLimitsAreRefusedWithTheReasonAndNothingWritten) {
  BackendGuard backend(choose_cpuset_backend(SysRoot("/"), unique_parent()), parent_dir());
  backend->apply({{"shared-offline", T("0-1", "0")}});
  const auto why_not = backend->set_cpu_limits("shared-offline", {"50000 100000", 50});
  ASSERT_TRUE(why_not.has_value());
  EXPECT_NE(why_not->find("cgroup v1 cpuset keeps the cpu controller in another hierarchy"),
            std::string::npos)
      << *why_not;
  EXPECT_FALSE(fs::exists(parent_dir() + "/shared-offline/cpu.max"));
}

TEST(AffinityBackendTest, EveryThreadFollowsTheTargetAndMemoryStaysOnItsNodes) {
  SKIP_UNLESS_ROOT();
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs";
  BackendGuard backend(
      choose_cpuset_backend(SysRoot("/"), unique_parent(), CpusetBackendKind::affinity), "");
  ASSERT_EQ(backend->kind(), CpusetBackendKind::affinity);
  EXPECT_TRUE(backend.choice().reasons.empty());
  backend->apply({{"pinned", T("1", "0")}, {"shared", T("0", "0")}});
  TwoThreadChild child;
  ASSERT_EQ(child.threads().size(), 2u);
  backend->attach("pinned", child.pid());  // migrate_pages to node 0 included: no error
  EXPECT_EQ(child.cpus_allowed(), (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(backend->members("pinned"), std::vector<pid_t>{child.pid()});
  for (const auto& note : backend->notes()) {
    EXPECT_EQ(note.find("migrate_pages"), std::string::npos) << note;
  }
  // Pages stay on node 0 (the only node here): numa_maps names no other.
  std::string maps =
      tier::test::read_text_file("/proc/" + std::to_string(child.pid()) + "/numa_maps");
  EXPECT_NE(maps.find(" N0="), std::string::npos);
  EXPECT_EQ(maps.find(" N1="), std::string::npos);

  backend->apply({{"pinned", T("0", "0")}, {"shared", T("1", "0")}});
  EXPECT_EQ(child.cpus_allowed(), (std::vector<std::string>{"0", "0"}));
  backend->apply({{"shared", T("1", "0")}});  // pinned removed: to the union of the rest
  EXPECT_EQ(child.cpus_allowed(), (std::vector<std::string>{"1", "1"}));
  EXPECT_TRUE(backend->members("pinned").empty());
  EXPECT_EQ(backend->set_cpu_limits("shared", {"50000 100000", 50}).value_or(""),
            "the affinity backend has no cgroup to hold cpu.max/cpu.weight");
}

TEST(CpusetBackendChoice, ForcingAnUnusableBackendSaysWhy) {
  tier::test::TempDir empty("tier-cpuset-root");
  try {
    choose_cpuset_backend(SysRoot(empty.path()), "tier", CpusetBackendKind::cgroup_v1);
    ADD_FAILURE() << "v1 chosen without a mount table";
  } catch (const CpusetError& e) {
    EXPECT_STREQ(e.what(),
                 "cpuset backend cgroup-v1 is not usable: no cgroup v1 mount with the cpuset "
                 "controller");
  }
  auto choice = choose_cpuset_backend(SysRoot(empty.path()));
  EXPECT_EQ(choice.backend->kind(), CpusetBackendKind::affinity);
  EXPECT_EQ(choice.reasons,
            (std::vector<std::string>{"no cgroup2 mount in the mount table",
                                      "no cgroup v1 mount with the cpuset controller"}));
  EXPECT_THROW(choose_cpuset_backend(SysRoot(empty.path()), "a/b"), CpusetError);
  EXPECT_EQ(parse_cpuset_backend_kind("cgroup-v2"), CpusetBackendKind::cgroup_v2);
  EXPECT_EQ(parse_cpuset_backend_kind("v2"), std::nullopt);
}

}  // namespace
}  // namespace tier::cpu
