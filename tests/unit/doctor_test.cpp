// Doctor: file-based checks against fixture trees built in the test, decision
// logic against fake probers, and one live run of the real BPF probes.
#include "tier/doctor/doctor.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace tier::doctor {
namespace {

namespace fs = std::filesystem;

// A temporary root; files are declared as {kernel path, contents}.
class Tree {
 public:
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "tier-doctor-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  Tree& file(const std::string& kernel_path, const std::string& text) {
    fs::path p = dir_ / kernel_path.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return *this;
  }
  Tree& dir(const std::string& kernel_path) {
    fs::create_directories(dir_ / kernel_path.substr(1));
    return *this;
  }
  SysRoot root() const { return SysRoot(dir_); }

 private:
  fs::path dir_;
};

CheckResult check(const Tree& tree, std::string_view name, const Probers& probers = {}) {
  auto results = run_checks(tree.root(), probers);
  const CheckResult* r = find(results, name);
  if (r == nullptr) throw std::runtime_error("no check " + std::string(name));
  return *r;
}

// ---- fakes for the live mechanisms ----

class FakeBpf : public BpfProber {
 public:
  std::map<BpfProgram, ProbeOutcome> outcomes;
  ProbeOutcome probe(BpfProgram program) override { return outcomes[program]; }
};

class FakePerf : public PerfProber {
 public:
  ProbeOutcome outcome;
  ProbeOutcome open_cpu_cycles() override { return outcome; }
};

class FakeSoftDirty : public SoftDirtyProber {
 public:
  SoftDirtyOutcome outcome;
  SoftDirtyOutcome run() override { return outcome; }
};

ProbeOutcome failed(int error, std::string step) {
  ProbeOutcome out;
  out.error = error;
  out.step = std::move(step);
  return out;
}

ProbeOutcome counted(std::uint64_t events) {
  ProbeOutcome out;
  out.step = "attach";
  out.events = events;
  return out;
}

// ---- the report as a whole ----

TEST(Doctor, ReportsEveryCheckInOrderEvenOnAnEmptyTree) {
  Tree tree;
  auto results = run_checks(tree.root(), Probers{});
  ASSERT_EQ(results.size(), check_names().size());
  for (std::size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i].name, check_names()[i]);
  for (const char* name :
       {"kernel",         "btf",        "bpf_tracepoint",      "tp_btf",
        "kprobes",        "pmu",        "damon_vaddr",         "damon_paddr",
        "idle_page",      "soft_dirty", "cgroup_v2_cpuset",    "cgroup_v1_cpuset",
        "numa_balancing", "demotion",   "weighted_interleave", "weighted_interleave_auto",
        "systemd",        "numa_nodes", "memory_tiering",      "damon_node_goals",
        "pagemap_scan"}) {
    EXPECT_NE(find(results, name), nullptr) << name;
  }
}

TEST(Doctor, JsonHasExactlyTheDocumentedShape) {
  std::vector<CheckResult> results = {{"kernel", Status::ok, "Linux 6.18", ""},
                                      {"kprobes", Status::missing, "ENOENT", "tracepoints only"}};
  auto doc = boost::json::parse(to_json(results)).as_object();
  ASSERT_EQ(doc.size(), 1U);
  const auto& checks = doc.at("checks").as_array();
  ASSERT_EQ(checks.size(), 2U);
  const auto& second = checks[1].as_object();
  EXPECT_EQ(second.size(), 4U);
  EXPECT_EQ(second.at("name"), "kprobes");
  EXPECT_EQ(second.at("status"), "missing");
  EXPECT_EQ(second.at("detail"), "ENOENT");
  EXPECT_EQ(second.at("impact"), "tracepoints only");
  EXPECT_EQ(checks[0].at("status"), "ok");
}

// ---- live checks without probers: a gathered tree never probes the host ----

TEST(Doctor, LiveChecksAreNotProbedForAGatheredTree) {
  Tree tree;
  tree.dir("/sys/bus/event_source/devices/cpu");
  auto results = run_checks(tree.root());  // not live: no probers are made
  for (const char* name : {"bpf_tracepoint", "tp_btf", "kprobes", "soft_dirty", "pmu"}) {
    const CheckResult* r = find(results, name);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->status, Status::error) << name;
    EXPECT_NE(r->detail.find("not probed"), std::string::npos) << name << ": " << r->detail;
  }
}

// ---- kernel, btf ----

TEST(Doctor, KernelVersionIsParsed) {
  Tree tree;
  tree.file("/proc/sys/kernel/osrelease", "6.12.95+deb12-amd64\n");
  auto r = check(tree, "kernel");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.detail, "Linux 6.12.95+deb12-amd64 (6.12)");
  EXPECT_TRUE(r.impact.empty());

  Tree old;
  old.file("/proc/sys/kernel/osrelease", "5.15.0-91-generic\n");
  EXPECT_NE(check(old, "kernel").impact.find("older than 6.1"), std::string::npos);
}

TEST(Doctor, BtfPresenceFollowsTheRoot) {
  Tree with;
  with.file("/sys/kernel/btf/vmlinux", std::string(4096, 'x'));
  EXPECT_EQ(check(with, "btf").status, Status::ok);
  EXPECT_NE(check(with, "btf").detail.find("4 KiB"), std::string::npos);
  Tree without;
  EXPECT_EQ(check(without, "btf").status, Status::missing);
}

// ---- numa_balancing, demotion ----

struct BalancingCase {
  const char* mode;
  const char* meaning;
  bool kernel_promotes;
};

class NumaBalancingModes : public ::testing::TestWithParam<BalancingCase> {};

TEST_P(NumaBalancingModes, ModeIsReportedWithItsMeaning) {
  Tree tree;
  tree.file("/proc/sys/kernel/numa_balancing", std::string(GetParam().mode) + "\n")
      .file("/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps", "65536\n");
  auto r = check(tree, "numa_balancing");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.detail.rfind(std::string("mode ") + GetParam().mode + " (", 0), 0U) << r.detail;
  EXPECT_NE(r.detail.find(GetParam().meaning), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("promote_rate_limit_MBps=65536"), std::string::npos);
  EXPECT_EQ(!r.impact.empty(), GetParam().kernel_promotes) << r.impact;
}

INSTANTIATE_TEST_SUITE_P(Modes, NumaBalancingModes,
                         ::testing::Values(BalancingCase{"0", "disabled", false},
                                           BalancingCase{"1", "normal", false},
                                           BalancingCase{"2", "memory tiering", true},
                                           BalancingCase{"3", "normal + memory tiering", true}));

TEST(Doctor, NumaBalancingMissingWithoutTheSysctl) {
  Tree tree;
  auto r = check(tree, "numa_balancing");
  EXPECT_EQ(r.status, Status::missing);
  EXPECT_NE(r.detail.find("CONFIG_NUMA_BALANCING"), std::string::npos);
  EXPECT_FALSE(r.impact.empty());
}

TEST(Doctor, NumaBalancingWithoutRateLimitSaysSo) {
  Tree tree;
  tree.file("/proc/sys/kernel/numa_balancing", "1\n");
  EXPECT_NE(check(tree, "numa_balancing").detail.find("no numa_balancing_promote_rate_limit"),
            std::string::npos);
}

TEST(Doctor, DemotionOnOffAndMissing) {
  Tree on;
  on.file("/sys/kernel/mm/numa/demotion_enabled", "true\n");
  auto r = check(on, "demotion");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_NE(r.detail.find("demotion_enabled=true (reclaim demotes"), std::string::npos);

  Tree off;
  off.file("/sys/kernel/mm/numa/demotion_enabled", "false\n");
  r = check(off, "demotion");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_NE(r.detail.find("demotion_enabled=false (reclaim drops"), std::string::npos);

  Tree none;
  r = check(none, "demotion");
  EXPECT_EQ(r.status, Status::missing);
  EXPECT_FALSE(r.impact.empty());
}

// ---- DAMON ----

constexpr const char* kCtx = "/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0";

TEST(Doctor, DamonMissingWithoutAdminDir) {
  Tree tree;
  for (const char* name : {"damon_vaddr", "damon_paddr"}) {
    auto r = check(tree, name);
    EXPECT_EQ(r.status, Status::missing) << name;
    EXPECT_NE(r.detail.find("no /sys/kernel/mm/damon/admin"), std::string::npos);
    EXPECT_FALSE(r.impact.empty());
  }
}

TEST(Doctor, DamonAvailOperationsDecidesEachOperationsSet) {
  Tree tree;
  tree.file("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "1\n")
      .file("/sys/kernel/mm/damon/admin/kdamonds/0/state", "on\n")
      .file(std::string(kCtx) + "/avail_operations", "paddr\n");
  auto vaddr = check(tree, "damon_vaddr");
  auto paddr = check(tree, "damon_paddr");
  EXPECT_EQ(vaddr.status, Status::missing);
  EXPECT_EQ(paddr.status, Status::ok);
  EXPECT_NE(paddr.detail.find("kdamonds/0/contexts/0/avail_operations lists: paddr"),
            std::string::npos)
      << paddr.detail;
  EXPECT_NE(paddr.detail.find("1 kdamond(s) already exist (0: on)"), std::string::npos);

  Tree all;
  all.file(std::string(kCtx) + "/avail_operations", "vaddr\nfvaddr\npaddr\n");
  EXPECT_EQ(check(all, "damon_vaddr").status, Status::ok);
  EXPECT_EQ(check(all, "damon_paddr").status, Status::ok);
}

TEST(Doctor, DamonFallsBackToKernelConfigAndSaysSo) {
  Tree tree;
  tree.file("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "0\n")
      .file("/proc/sys/kernel/osrelease", "6.12.0\n")
      .file("/boot/config-6.12.0",
            "CONFIG_DAMON=y\n# CONFIG_DAMON_VADDR is not set\nCONFIG_DAMON_PADDR=y\n");
  auto vaddr = check(tree, "damon_vaddr");
  EXPECT_EQ(vaddr.status, Status::missing);
  EXPECT_NE(vaddr.detail.find("decided by kernel config"), std::string::npos) << vaddr.detail;
  EXPECT_NE(vaddr.detail.find("CONFIG_DAMON_VADDR is not set (/boot/config-6.12.0)"),
            std::string::npos)
      << vaddr.detail;
  EXPECT_EQ(check(tree, "damon_paddr").status, Status::ok);
}

TEST(Doctor, DamonFallsBackToKallsymsWithoutConfig) {
  Tree tree;
  tree.file("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "0\n")
      .file("/proc/kallsyms",
            "0000000000000000 t damon_pa_check_accesses\n"
            "0000000000000000 t damon_va_three_regions\n");
  auto vaddr = check(tree, "damon_vaddr");
  EXPECT_EQ(vaddr.status, Status::ok);
  EXPECT_NE(vaddr.detail.find("decided by /proc/kallsyms: damon_va_* symbols present"),
            std::string::npos)
      << vaddr.detail;

  Tree paddr_only;
  paddr_only.file("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "0\n")
      .file("/proc/kallsyms", "0000000000000000 t damon_pa_check_accesses\n");
  EXPECT_EQ(check(paddr_only, "damon_vaddr").status, Status::missing);
  EXPECT_EQ(check(paddr_only, "damon_paddr").status, Status::ok);
}

TEST(Doctor, DamonUndecidableIsAnErrorNotAGuess) {
  Tree tree;
  tree.file("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "0\n");
  auto r = check(tree, "damon_vaddr");
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.detail.find("does not create a kdamond"), std::string::npos);
}

// ---- cgroups ----

constexpr const char* kHybridMountinfo =
    "22 1 0:21 / /proc rw,relatime shared:12 - proc proc rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime shared:5 master:2 - cgroup cgroup rw,cpuset\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(Doctor, HybridCgroupsHaveV1CpusetOnly) {
  Tree tree;
  tree.file("/proc/self/mountinfo", kHybridMountinfo)
      .file("/sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n")
      .file("/sys/fs/cgroup/cpuset/cpuset.cpus", "0-1\n")
      .file("/sys/fs/cgroup/cpuset/cpuset.mems", "0\n");
  auto v1 = check(tree, "cgroup_v1_cpuset");
  EXPECT_EQ(v1.status, Status::ok);
  EXPECT_EQ(v1.detail,
            "v1 cpuset hierarchy at /sys/fs/cgroup/cpuset, root cpuset.cpus=0-1, cpuset.mems=0");
  auto v2 = check(tree, "cgroup_v2_cpuset");
  EXPECT_EQ(v2.status, Status::missing);
  EXPECT_NE(v2.detail.find("/sys/fs/cgroup/unified controllers: hugetlb"), std::string::npos);
}

TEST(Doctor, PureCgroupV2WithCpuset) {
  Tree tree;
  tree.file("/proc/self/mountinfo",
            "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n")
      .file("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  EXPECT_EQ(check(tree, "cgroup_v2_cpuset").status, Status::ok);
  auto v1 = check(tree, "cgroup_v1_cpuset");
  EXPECT_EQ(v1.status, Status::missing);
  EXPECT_FALSE(v1.impact.empty());
}

TEST(Doctor, MountPointsWithEscapesAndProcMountsFallback) {
  // No mountinfo: /proc/mounts is used; "\040" is an escaped space.
  Tree tree;
  tree.file("/proc/mounts",
            "cgroup /my\\040cgroups/cpuset cgroup rw,nosuid,cpuset,cpu 0 0\n"
            "cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n")
      .file("/my cgroups/cpuset/cpuset.cpus", "0-3\n");
  auto v1 = check(tree, "cgroup_v1_cpuset");
  EXPECT_EQ(v1.status, Status::ok);
  EXPECT_NE(v1.detail.find("at /my cgroups/cpuset, root cpuset.cpus=0-3"), std::string::npos)
      << v1.detail;
  auto v2 = check(tree, "cgroup_v2_cpuset");
  EXPECT_EQ(v2.status, Status::missing);
  EXPECT_NE(v2.detail.find("controllers: unreadable"), std::string::npos) << v2.detail;
}

TEST(Doctor, CpusetAsOptionSubstringDoesNotCount) {
  Tree tree;
  tree.file("/proc/self/mountinfo",
            "34 31 0:31 / /sys/fs/cgroup/x rw - cgroup cgroup rw,name=cpusetish\n");
  EXPECT_EQ(check(tree, "cgroup_v1_cpuset").status, Status::missing);
}

// ---- weighted interleave ----

TEST(Doctor, WeightedInterleaveListsNodesAndOddEntries) {
  Tree tree;
  const std::string dir = "/sys/kernel/mm/mempolicy/weighted_interleave";
  tree.file(dir + "/node0", "3\n")
      .file(dir + "/node1", "1\n")
      .file(dir + "/__auto_type", "true\n")
      .file(dir + "/nodefoo", "x\n");
  auto r = check(tree, "weighted_interleave");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.detail, "weights: node0=3, node1=1; other entries: __auto_type=true, nodefoo=x");

  Tree modern;
  modern.file(dir + "/node0", "1\n").file(dir + "/auto", "false\n");
  EXPECT_EQ(check(modern, "weighted_interleave").detail,
            "weights: node0=1; other entries: auto=false");

  Tree none;
  EXPECT_EQ(check(none, "weighted_interleave").status, Status::missing);
}

TEST(Doctor, WeightedInterleaveAutoUnderEitherName) {
  const std::string dir = "/sys/kernel/mm/mempolicy/weighted_interleave";
  Tree upstream;
  upstream.file(dir + "/node0", "1\n").file(dir + "/auto", "true\n");
  auto r = check(upstream, "weighted_interleave_auto");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.detail,
            dir + "/auto = true (true: the kernel derives the weights from HMAT bandwidth)");
  Tree odd;
  odd.file(dir + "/__auto_type", "false\n");
  EXPECT_EQ(check(odd, "weighted_interleave_auto").status, Status::ok);
  Tree old;  // 6.9-6.15: node weights only
  old.file(dir + "/node0", "1\n");
  EXPECT_EQ(check(old, "weighted_interleave_auto").status, Status::missing);
}

// ---- features of newer kernels, by the functions they bring ----

TEST(Doctor, NewerKernelFeaturesFollowKallsyms) {
  Tree newest;  // 7.3's /proc/kallsyms, the lines that matter
  newest.file("/proc/kallsyms",
              "0000000000000000 t damos_get_node_memcg_used_bp\n"
              "0000000000000000 t damos_get_node_mem_bp\n"
              "0000000000000000 t do_pagemap_scan\n");
  EXPECT_EQ(check(newest, "damon_node_goals").status, Status::ok);
  EXPECT_EQ(check(newest, "pagemap_scan").status, Status::ok);

  Tree lts;  // 6.12: PAGEMAP_SCAN (6.7), no node quota goals (6.16)
  lts.file("/proc/kallsyms",
           "0000000000000000 t pagemap_scan_output\n"
           "0000000000000000 t do_pagemap_scan\n"
           "0000000000000000 t damos_get_node_mem_bp_x\n");  // a longer name is not it
  auto goals = check(lts, "damon_node_goals");
  EXPECT_EQ(goals.status, Status::missing);
  EXPECT_EQ(goals.detail,
            "/proc/kallsyms has no damos_get_node_mem_bp (no DAMOS quota goals "
            "node_mem_used_bp/node_mem_free_bp)");
  EXPECT_FALSE(goals.impact.empty());
  EXPECT_EQ(check(lts, "pagemap_scan").status, Status::ok);

  Tree gathered;  // a tree without /proc/kallsyms cannot tell
  EXPECT_EQ(check(gathered, "damon_node_goals").status, Status::error);
  EXPECT_EQ(check(gathered, "pagemap_scan").status, Status::error);
}

// ---- systemd ----

TEST(Doctor, SystemdAsPid1) {
  Tree yes;
  yes.file("/proc/1/comm", "systemd\n").dir("/run/systemd/system");
  auto r = check(yes, "systemd");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.detail, "PID 1 is 'systemd'; /run/systemd/system present");

  Tree no;
  no.file("/proc/1/comm", "process_api\n");
  r = check(no, "systemd");
  EXPECT_EQ(r.status, Status::missing);
  EXPECT_EQ(r.detail, "PID 1 is 'process_api'; /run/systemd/system absent");
  EXPECT_FALSE(r.impact.empty());
}

// ---- nodes and tiers ----

TEST(Doctor, NodesAndMemoryTiers) {
  Tree tree;
  tree.dir("/sys/devices/system/node/node0")
      .dir("/sys/devices/system/node/node1")
      .dir("/sys/devices/system/node/node2")
      .file("/sys/devices/system/node/has_cpu", "0-1\n")
      .file("/sys/devices/virtual/memory_tiering/memory_tier4/nodelist", "0-1\n")
      .file("/sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "2\n");
  auto nodes = check(tree, "numa_nodes");
  EXPECT_EQ(nodes.status, Status::ok);
  EXPECT_EQ(nodes.detail, "3 nodes (0,1,2); nodes with CPUs: 0-1");
  auto tiers = check(tree, "memory_tiering");
  EXPECT_EQ(tiers.status, Status::ok);
  EXPECT_EQ(tiers.detail, "2 tiers: memory_tier4=0-1, memory_tier22=2");

  Tree flat;
  EXPECT_EQ(check(flat, "numa_nodes").status, Status::missing);
  EXPECT_EQ(check(flat, "memory_tiering").status, Status::missing);
}

// ---- decision logic with fake probers ----

TEST(DoctorDecisions, BpfOutcomesMapToStatuses) {
  Tree tree;
  FakeBpf bpf;
  bpf.outcomes[BpfProgram::tracepoint] = counted(7);
  bpf.outcomes[BpfProgram::tp_btf] = counted(0);  // attached, yet nothing arrived
  bpf.outcomes[BpfProgram::kprobe] = failed(ENOENT, "attach");
  Probers probers{&bpf, nullptr, nullptr};
  auto results = run_checks(tree.root(), probers);

  EXPECT_EQ(find(results, "bpf_tracepoint")->status, Status::ok);
  EXPECT_NE(find(results, "bpf_tracepoint")->detail.find("7 events counted"), std::string::npos);
  EXPECT_EQ(find(results, "tp_btf")->status, Status::error);
  const CheckResult* kprobes = find(results, "kprobes");
  EXPECT_EQ(kprobes->status, Status::missing);
  EXPECT_NE(kprobes->detail.find("attach failed: ENOENT"), std::string::npos) << kprobes->detail;
  EXPECT_NE(kprobes->detail.find("kprobe PMU (/sys/bus/event_source/devices/kprobe absent)"),
            std::string::npos);
  EXPECT_NE(kprobes->impact.find("tracepoints only"), std::string::npos);
}

TEST(DoctorDecisions, BpfPermissionDeniedIsAnErrorNotMissing) {
  Tree tree;
  FakeBpf bpf;
  for (auto program : {BpfProgram::tracepoint, BpfProgram::tp_btf, BpfProgram::kprobe}) {
    bpf.outcomes[program] = failed(EPERM, "load");
  }
  auto results = run_checks(tree.root(), Probers{&bpf, nullptr, nullptr});
  for (const char* name : {"bpf_tracepoint", "tp_btf", "kprobes"}) {
    EXPECT_EQ(find(results, name)->status, Status::error) << name;
    EXPECT_NE(find(results, name)->impact.find("root"), std::string::npos) << name;
  }
}

TEST(DoctorDecisions, PmuNeedsAWorkingCounter) {
  Tree tree;
  tree.dir("/sys/bus/event_source/devices/cpu/format/ldlat");
  FakePerf perf;
  perf.outcome = ProbeOutcome{};
  auto r = check(tree, "pmu", Probers{nullptr, &perf, nullptr});
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_NE(r.detail.find("PEBS load latency (cpu/format/ldlat)"), std::string::npos) << r.detail;

  perf.outcome = failed(ENOENT, "perf_event_open(PERF_COUNT_HW_CPU_CYCLES)");
  Tree empty;
  r = check(empty, "pmu", Probers{nullptr, &perf, nullptr});
  EXPECT_EQ(r.status, Status::missing);
  EXPECT_NE(r.detail.find("no core PMU"), std::string::npos);

  perf.outcome = failed(EACCES, "perf_event_open(PERF_COUNT_HW_CPU_CYCLES)");
  tree.file("/proc/sys/kernel/perf_event_paranoid", "3\n");
  r = check(tree, "pmu", Probers{nullptr, &perf, nullptr});
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.detail.find("perf_event_paranoid=3"), std::string::npos);

  Tree amd;
  amd.dir("/sys/bus/event_source/devices/cpu").dir("/sys/bus/event_source/devices/ibs_op");
  perf.outcome = ProbeOutcome{};
  EXPECT_NE(check(amd, "pmu", Probers{nullptr, &perf, nullptr}).detail.find("IBS (ibs_op)"),
            std::string::npos);
}

TEST(DoctorDecisions, SoftDirtyRoundTrip) {
  Tree tree;
  FakeSoftDirty soft;
  Probers probers{nullptr, nullptr, &soft};

  soft.outcome = {ProbeOutcome{}, true, true, true};
  EXPECT_EQ(check(tree, "soft_dirty", probers).status, Status::ok);

  soft.outcome = {ProbeOutcome{}, false, true, false};  // CONFIG_MEM_SOFT_DIRTY off
  auto r = check(tree, "soft_dirty", probers);
  EXPECT_EQ(r.status, Status::missing);
  EXPECT_NE(r.detail.find("after rewrite=0"), std::string::npos);

  soft.outcome = {ProbeOutcome{}, true, false, true};  // bit never clears
  EXPECT_EQ(check(tree, "soft_dirty", probers).status, Status::missing);

  soft.outcome = {failed(EACCES, "open /proc/self/pagemap"), false, false, false};
  r = check(tree, "soft_dirty", probers);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.detail.find("open /proc/self/pagemap failed: EACCES"), std::string::npos);
}

// ---- live: the real probes on this machine ----

TEST(DoctorLive, TracepointProbeAttachesAndKprobesMatchTheKernel) {
  if (geteuid() != 0) GTEST_SKIP() << "BPF load/attach needs root";
  if (!fs::exists("/sys/kernel/btf/vmlinux")) GTEST_SKIP() << "kernel without BTF";
  auto results = run_checks(SysRoot("/"));
  const CheckResult* tp = find(results, "bpf_tracepoint");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->status, Status::ok) << tp->detail;
  EXPECT_EQ(find(results, "tp_btf")->status, Status::ok) << find(results, "tp_btf")->detail;
  // On the project's build machines CONFIG_KPROBES is off (no kprobe PMU):
  // the attach must fail as missing. Where kprobes exist it must work.
  const CheckResult* kprobes = find(results, "kprobes");
  bool have_kprobes = fs::exists("/sys/bus/event_source/devices/kprobe");
  EXPECT_EQ(kprobes->status, have_kprobes ? Status::ok : Status::missing) << kprobes->detail;
}

}  // namespace
}  // namespace tier::doctor
