// Kubernetes-shaped discovery (daemon/workloads/kubepods.hpp) against
// kubepods trees built in a scratch directory — both kubelet cgroup drivers,
// cgroup v2 cpu.max and v1 cfs files, Guaranteed pods with whole and
// fractional CPUs, Burstable, BestEffort, containers and junk — the pod
// override file (daemon/workloads/pod_overrides.hpp) and its errors, and
// tests/fixtures/kubepods/make-tree.sh on a scratch dir and on the real
// cgroup2 mount when there is one.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "workloads/kubepods.hpp"
#include "workloads/pod_overrides.hpp"

namespace tierd {
// Readable failures for the exact-list assertions.
void PrintTo(const PodWorkload& pod, std::ostream* out) {
  *out << "{" << pod.uid << " " << pod.cgroup << " " << to_string(pod.qos) << " limit=";
  if (pod.cpu_limit) {
    *out << *pod.cpu_limit;
  } else {
    *out << "none";
  }
  *out << " " << to_string(pod.cls) << " " << pod.pool << " quota=" << to_string(pod.quota) << " \""
       << pod.source_reason << "\"}";
}
}  // namespace tierd

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using tier::test::TempDir;
using tierd::discover_pods;
using tierd::PodOverrides;
using tierd::PodOverridesError;
using tierd::PodWorkload;
using tierd::WorkloadClass;
using Qos = tierd::PodWorkload::Qos;
namespace fs = std::filesystem;

using Files = std::vector<std::pair<std::string, std::string>>;

// A cgroup tree in a scratch directory, described path by path.
class FixtureTree {
 public:
  FixtureTree() : dir_("tier-kube") {}
  tier::SysRoot root() const { return tier::SysRoot(dir_.path()); }

  /// A cgroup directory (it holds cgroup.procs) with the given control files.
  FixtureTree& cgroup(const std::string& path, const Files& files = {}) {
    tier::test::write_text_file(host(path) / "cgroup.procs", "");
    for (const auto& [name, text] : files) tier::test::write_text_file(host(path) / name, text);
    return *this;
  }
  /// A directory that is not a cgroup (no cgroup.procs).
  FixtureTree& plain_dir(const std::string& path) {
    fs::create_directories(host(path));
    return *this;
  }
  FixtureTree& file(const std::string& path, const std::string& text) {
    tier::test::write_text_file(host(path), text);
    return *this;
  }

 private:
  fs::path host(const std::string& path) const { return dir_.path() / path.substr(1); }
  TempDir dir_;
};

constexpr const char* kUid1 = "1f2e3d4c-0000-4000-8000-000000000001";
constexpr const char* kUid2 = "1f2e3d4c-0000-4000-8000-000000000002";
constexpr const char* kUid3 = "1f2e3d4c-0000-4000-8000-000000000003";
constexpr const char* kUid4 = "1f2e3d4c-0000-4000-8000-000000000004";
constexpr const char* kUid5 = "1f2e3d4c-0000-4000-8000-000000000005";

// systemd's spelling of a uid in a slice name.
std::string underscored(std::string uid) {
  for (char& c : uid) {
    if (c == '-') c = '_';
  }
  return uid;
}

PodWorkload pod(std::string uid, std::string cgroup, Qos qos, std::optional<double> limit,
                WorkloadClass cls, std::string pool, std::string reason) {
  PodWorkload p;
  p.uid = std::move(uid);
  p.cgroup = std::move(cgroup);
  p.qos = qos;
  p.cpu_limit = limit;
  p.cls = cls;
  p.pool = std::move(pool);
  p.source_reason = std::move(reason);
  return p;
}

// kubelet's systemd driver on cgroup v2.
TEST(KubepodsDiscovery, SystemdDriverOnCgroupV2) {
  const std::string k = "/sys/fs/cgroup/kubepods.slice";
  const std::string g1 = k + "/kubepods-pod" + underscored(kUid1) + ".slice";
  const std::string g2 = k + "/kubepods-pod" + underscored(kUid2) + ".slice";
  const std::string b =
      k + "/kubepods-burstable.slice/kubepods-burstable-pod" + underscored(kUid3) + ".slice";
  const std::string be =
      k + "/kubepods-besteffort.slice/kubepods-besteffort-pod" + underscored(kUid4) + ".slice";
  FixtureTree tree;
  tree.cgroup(k, {{"cpu.max", "max 100000"}})
      .cgroup(g1, {{"cpu.max", "200000 100000"}})
      .cgroup(g1 + "/cri-containerd-0a1b2c.scope", {{"cpu.max", "200000 100000"}})
      .cgroup(g2, {{"cpu.max", "150000 100000"}})
      .cgroup(g2 + "/crio-3d4e5f.scope", {{"cpu.max", "150000 100000"}})
      .cgroup(k + "/kubepods-burstable.slice", {{"cpu.max", "max 100000"}})
      .cgroup(b, {{"cpu.max", "300000 100000"}})
      .cgroup(b + "/docker-6a7b8c.scope")
      .cgroup(k + "/kubepods-besteffort.slice", {{"cpu.max", "max 100000"}})
      .cgroup(be, {{"cpu.max", "max 100000"}})
      .cgroup(be + "/cri-containerd-9d0e1f.scope")
      // Junk a discovery must not mistake for pods.
      .cgroup(k + "/system-extra.slice")
      .cgroup(k + "/kubepods-podnot_a_uid.slice")
      .cgroup(k + "/kubepods-burstable.slice/kubepods-besteffort-pod" + underscored(kUid5) +
              ".slice")
      .cgroup(k + "/kubepods-burstable.slice/stray")
      .plain_dir(k + "/kubepods-pod" + underscored(kUid5) + ".slice")
      .file(
          k + "/kubepods-besteffort.slice/kubepods-besteffort-pod" + underscored(kUid5) + ".slice",
          "a file, not a directory");

  EXPECT_THAT(discover_pods(tree.root(), k, {}),
              ElementsAre(pod(kUid4, be, Qos::besteffort, std::nullopt, WorkloadClass::offline,
                              "shared", "BestEffort -> offline shared"),
                          pod(kUid3, b, Qos::burstable, 3.0, WorkloadClass::online, "shared",
                              "Burstable -> online shared"),
                          pod(kUid1, g1, Qos::guaranteed, 2.0, WorkloadClass::online, "exclusive:2",
                              "Guaranteed, 2 CPUs -> online exclusive:2"),
                          pod(kUid2, g2, Qos::guaranteed, 1.5, WorkloadClass::online, "shared",
                              "Guaranteed, 1.5 CPUs (not whole) -> online shared")));
}

// kubelet's cgroupfs driver on cgroup v1 (the cpu,cpuacct hierarchy).
TEST(KubepodsDiscovery, CgroupfsDriverOnCgroupV1) {
  const std::string k = "/sys/fs/cgroup/cpu,cpuacct/kubepods";
  const std::string g1 = k + "/pod" + kUid1;
  const std::string g2 = k + "/pod" + kUid2;
  const std::string b = k + "/burstable/pod" + kUid3;
  const std::string be = k + "/besteffort/pod" + kUid4;
  auto cfs = [](const char* quota) -> Files {
    return {{"cpu.cfs_quota_us", quota}, {"cpu.cfs_period_us", "100000"}};
  };
  FixtureTree tree;
  tree.cgroup(k, cfs("-1"))
      .cgroup(g1, cfs("100000"))
      .cgroup(g1 + "/0123456789abcdef0123456789abcdef", cfs("100000"))
      .cgroup(g2, cfs("-1"))
      .cgroup(k + "/burstable", cfs("-1"))
      .cgroup(b, cfs("50000"))
      .cgroup(b + "/fedcba9876543210fedcba9876543210", cfs("50000"))
      .cgroup(k + "/besteffort", cfs("-1"))
      .cgroup(be, cfs("-1"))
      .cgroup(be + "/00112233445566778899aabbccddeeff", cfs("-1"))
      .cgroup(k + "/podXYZ", cfs("100000"))
      .cgroup(k + "/kube-proxy")
      .cgroup(k + "/besteffort/not-a-pod" + std::string(kUid5));

  EXPECT_THAT(discover_pods(tree.root(), k + "/", {}),
              ElementsAre(pod(kUid4, be, Qos::besteffort, std::nullopt, WorkloadClass::offline,
                              "shared", "BestEffort -> offline shared"),
                          pod(kUid3, b, Qos::burstable, 0.5, WorkloadClass::online, "shared",
                              "Burstable -> online shared"),
                          pod(kUid1, g1, Qos::guaranteed, 1.0, WorkloadClass::online, "exclusive:1",
                              "Guaranteed, 1 CPU -> online exclusive:1"),
                          pod(kUid2, g2, Qos::guaranteed, std::nullopt, WorkloadClass::online,
                              "shared", "Guaranteed, no CPU limit -> online shared")));
}

// tierd owns cpusets: on cgroup v1 it looks at the pods through the cpuset
// hierarchy, and their CPU limits sit at the same path under the cpu one.
TEST(KubepodsDiscovery, V1CpusetHierarchyReadsLimitsFromTheCpuHierarchy) {
  const std::string rel = "/kubepods.slice/kubepods-pod" + underscored(kUid1) + ".slice";
  const std::string rel2 = "/kubepods.slice/kubepods-pod" + underscored(kUid2) + ".slice";
  FixtureTree tree;
  tree.cgroup("/sys/fs/cgroup/cpuset/kubepods.slice")
      .cgroup("/sys/fs/cgroup/cpuset" + rel, {{"cpuset.cpus", "0-3"}})
      .cgroup("/sys/fs/cgroup/cpuset" + rel2)
      .cgroup("/sys/fs/cgroup/cpu,cpuacct" + rel,
              {{"cpu.cfs_quota_us", "400000"}, {"cpu.cfs_period_us", "100000"}});

  EXPECT_THAT(
      discover_pods(tree.root(), "/sys/fs/cgroup/cpuset/kubepods.slice", {}),
      ElementsAre(
          pod(kUid1, "/sys/fs/cgroup/cpuset" + rel, Qos::guaranteed, 4.0, WorkloadClass::online,
              "exclusive:4", "Guaranteed, 4 CPUs -> online exclusive:4"),
          pod(kUid2, "/sys/fs/cgroup/cpuset" + rel2, Qos::guaranteed, std::nullopt,
              WorkloadClass::online, "shared", "Guaranteed, no CPU limit -> online shared")));
}

TEST(KubepodsDiscovery, CpuLimitForms) {
  FixtureTree tree;
  tree.cgroup("/a", {{"cpu.max", "250000 100000"}})
      .cgroup("/b", {{"cpu.max", "max 100000"}})
      .cgroup("/c", {{"cpu.max", "garbage"}})
      .cgroup("/d", {{"cpu.cfs_quota_us", "-1"}, {"cpu.cfs_period_us", "100000"}})
      .cgroup("/e", {{"cpu.cfs_quota_us", "20000"}, {"cpu.cfs_period_us", "10000"}})
      .cgroup("/f");
  auto limit = [&](const char* path) { return tierd::read_pod_cpu_limit(tree.root(), path); };
  EXPECT_EQ(limit("/a"), 2.5);
  EXPECT_EQ(limit("/b"), std::nullopt);
  EXPECT_EQ(limit("/c"), std::nullopt);
  EXPECT_EQ(limit("/d"), std::nullopt);
  EXPECT_EQ(limit("/e"), 2.0);
  EXPECT_EQ(limit("/f"), std::nullopt);
  EXPECT_EQ(limit("/missing"), std::nullopt);
}

TEST(KubepodsDiscovery, DriverFromTheRootName) {
  EXPECT_EQ(tierd::detect_cgroup_driver("/sys/fs/cgroup/kubepods.slice"),
            tierd::CgroupDriver::systemd);
  EXPECT_EQ(tierd::detect_cgroup_driver("/sys/fs/cgroup/cpuset/kubepods.slice/"),
            tierd::CgroupDriver::systemd);
  EXPECT_EQ(tierd::detect_cgroup_driver("/sys/fs/cgroup/kubepods"), tierd::CgroupDriver::cgroupfs);
  EXPECT_EQ(tierd::detect_cgroup_driver("/sys/fs/cgroup/cpu/kubepods"),
            tierd::CgroupDriver::cgroupfs);
}

TEST(KubepodsDiscovery, MissingRootIsNoPods) {
  FixtureTree tree;
  tree.cgroup("/sys/fs/cgroup/other");
  EXPECT_TRUE(discover_pods(tree.root(), "/sys/fs/cgroup/kubepods.slice", {}).empty());
  EXPECT_TRUE(discover_pods(tree.root(), "/sys/fs/cgroup/kubepods", {}).empty());
}

TEST(KubepodsDiscovery, OverridesWinOverTheQosMapping) {
  const std::string k = "/sys/fs/cgroup/kubepods";
  FixtureTree tree;
  tree.cgroup(k)
      .cgroup(k + "/pod" + kUid1, {{"cpu.max", "200000 100000"}})
      .cgroup(k + "/burstable")
      .cgroup(k + "/burstable/pod" + kUid2)
      .cgroup(k + "/burstable/pod" + kUid3)
      .cgroup(k + "/besteffort")
      .cgroup(k + "/besteffort/pod" + kUid4);
  // The first matching entry wins; unset fields keep the QoS mapping.
  const PodOverrides overrides = PodOverrides::parse(std::string(R"(
[[pod]]
uid = ")") + underscored(kUid1) + R"("
pool = "numa:1"

[[pod]]
match = "1f2e3d4c-.*-00000000000[23]"
class = "offline"
quota = "25%"

[[pod]]
uid = ")" + kUid2 + R"("
class = "online"
)",
                                                     "pods.toml");
  auto pods = discover_pods(tree.root(), k, overrides);
  tierd::Quota quarter;
  quarter.percent = 25;
  PodWorkload p2 =
      pod(kUid2, k + "/burstable/pod" + kUid2, Qos::burstable, std::nullopt, WorkloadClass::offline,
          "shared", "Burstable -> online shared; override pods.toml:6: class offline, quota 25%");
  p2.quota = quarter;
  PodWorkload p3 = p2;
  p3.uid = kUid3;
  p3.cgroup = k + "/burstable/pod" + kUid3;
  EXPECT_THAT(
      pods, ElementsAre(pod(kUid4, k + "/besteffort/pod" + kUid4, Qos::besteffort, std::nullopt,
                            WorkloadClass::offline, "shared", "BestEffort -> offline shared"),
                        p2, p3,
                        pod(kUid1, k + "/pod" + kUid1, Qos::guaranteed, 2.0, WorkloadClass::online,
                            "numa:1",
                            "Guaranteed, 2 CPUs -> online exclusive:2; override pods.toml:2: "
                            "pool numa:1")));
}

TEST(PodOverrides, ParsesEntries) {
  const PodOverrides overrides = PodOverrides::parse(R"(# overrides
[[pod]]
uid = "ABCDEF01_2345_6789_abcd_ef0123456789"
class = "default"
pool = "exclusive:3"

[[pod]]
match = "dead.*"
quota = "8G"
)",
                                                     "pods.toml");
  ASSERT_EQ(overrides.entries().size(), 2u);
  const tierd::PodOverride& first = overrides.entries()[0];
  EXPECT_EQ(first.uid, "abcdef01-2345-6789-abcd-ef0123456789");
  EXPECT_EQ(first.match, "");
  EXPECT_EQ(first.workload_class, WorkloadClass::normal);
  EXPECT_EQ(first.pool, "exclusive:3");
  EXPECT_EQ(first.quota, std::nullopt);
  EXPECT_EQ(first.where, "pods.toml:2");
  const tierd::PodOverride& second = overrides.entries()[1];
  EXPECT_EQ(second.match, "dead.*");
  EXPECT_EQ(second.workload_class, std::nullopt);
  EXPECT_EQ(second.pool, std::nullopt);
  ASSERT_TRUE(second.quota.has_value());
  EXPECT_EQ(second.quota->bytes, std::uint64_t{8} << 30);
  EXPECT_EQ(second.where, "pods.toml:7");

  EXPECT_EQ(overrides.find("abcdef01-2345-6789-abcd-ef0123456789"), &first);
  EXPECT_EQ(overrides.find("deadbeef-0000"), &second);
  EXPECT_EQ(overrides.find("xdeadbeef"), nullptr);  // whole-uid match
  EXPECT_TRUE(PodOverrides::parse("", "empty.toml").empty());
  EXPECT_TRUE(PodOverrides().empty());
}

std::string parse_error(const std::string& text) {
  try {
    PodOverrides::parse(text, "pods.toml");
  } catch (const PodOverridesError& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(PodOverrides, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(parse_error("[[pod]]\nuid = \"ab\"\nklass = \"online\"\n"),
            "pods.toml:3: key 'pod[0].klass': unknown key (expected uid, match, class, pool, "
            "quota)");
  EXPECT_EQ(parse_error("[[pod]]\nuid = \"ab\"\nclass = \"batch\"\n"),
            "pods.toml:3: key 'pod[0].class': \"batch\": expected \"online\", \"offline\" or "
            "\"default\"");
  EXPECT_EQ(parse_error("[[pod]]\nuid = \"ab\"\nclass = 1\n"),
            "pods.toml:3: key 'pod[0].class': expected a string");
  EXPECT_EQ(parse_error("[[pod]]\nuid = \"ab\"\nclass = \"online\"\n[[pod]]\nuid = \"cd\"\n"
                        "pool = \"fast\"\n"),
            "pods.toml:6: key 'pod[1].pool': unknown pool \"fast\" (shared, numa:N, immovable:K, "
            "exclusive:K)");
  EXPECT_THAT(parse_error("[[pod]]\nuid = \"ab\"\nquota = \"lots\"\n"),
              StartsWith("pods.toml:3: key 'pod[0].quota': invalid quota 'lots'"));
  EXPECT_THAT(parse_error("[[pod]]\nmatch = \"(\"\nclass = \"online\"\n"),
              StartsWith("pods.toml:2: key 'pod[0].match': \"(\" is not a valid regex"));
  EXPECT_EQ(parse_error("[[pod]]\nuid = \"pod-x\"\nclass = \"online\"\n"),
            "pods.toml:2: key 'pod[0].uid': \"pod-x\" is not a pod uid (hex digits and dashes)");
  EXPECT_EQ(parse_error("\n[[pod]]\nclass = \"online\"\n"),
            "pods.toml:2: key 'pod[0]': expected exactly one of uid and match");
  EXPECT_EQ(parse_error("[[pod]]\nuid = \"ab\"\nmatch = \"a.*\"\nclass = \"online\"\n"),
            "pods.toml:1: key 'pod[0]': expected exactly one of uid and match");
  EXPECT_EQ(parse_error("[[pod]]\nuid = \"ab\"\n"),
            "pods.toml:1: key 'pod[0]': sets nothing (expected class, pool or quota)");
  EXPECT_EQ(parse_error("[pods]\nuid = \"ab\"\n"),
            "pods.toml:1: key 'pods': unknown key (expected [[pod]])");
  EXPECT_EQ(parse_error("pod = \"ab\"\n"),
            "pods.toml:1: key 'pod': expected an array of tables ([[pod]])");
  EXPECT_EQ(parse_error("pod = [1]\n"), "pods.toml:1: key 'pod[0]': expected a table");
  EXPECT_THAT(parse_error("[[pod]]\nuid = \"ab\nclass = \"online\"\n"),
              StartsWith("pods.toml:2: "));
}

TEST(PodOverrides, UnreadableFileIsNamed) {
  TempDir dir("tier-kube");
  const std::string missing = (dir.path() / "pods.toml").string();
  try {
    PodOverrides::load(missing);
    FAIL() << "loaded a missing file";
  } catch (const PodOverridesError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot read pod override file");
  }
  tier::test::write_text_file(dir.path() / "pods.toml",
                              "[[pod]]\nuid = \"ab\"\npool = \"numa:0\"\n");
  EXPECT_EQ(PodOverrides::load(missing).find("ab")->pool, "numa:0");
}

// One line of make-tree.sh's report: where it put a pod and what it expects.
struct ScriptPod {
  std::string cgroup, uid, qos, cls, pool;
};

std::vector<ScriptPod> run_make_tree(const std::vector<std::string>& args) {
  std::vector<std::string> argv{std::string(TIER_FIXTURES) + "/kubepods/make-tree.sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  const tier::test::CommandResult result = tier::test::run_command(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<ScriptPod> pods;
  std::istringstream lines(result.out);
  ScriptPod p;
  while (lines >> p.cgroup >> p.uid >> p.qos >> p.cls >> p.pool) pods.push_back(p);
  return pods;
}

// The script's tree, read back by discovery, gives the classes and pools the
// script says the QEMU scenario should expect.
void expect_discovered_as_announced(const tier::SysRoot& root, const std::string& host_prefix,
                                    const std::string& kubepods_root,
                                    const std::vector<ScriptPod>& announced, bool limits_written) {
  ASSERT_EQ(announced.size(), 3u);
  const std::vector<PodWorkload> pods = discover_pods(root, kubepods_root, {});
  ASSERT_EQ(pods.size(), announced.size());
  std::vector<ScriptPod> sorted = announced;
  std::sort(sorted.begin(), sorted.end(),
            [](const ScriptPod& a, const ScriptPod& b) { return a.cgroup < b.cgroup; });
  for (std::size_t i = 0; i < pods.size(); ++i) {
    SCOPED_TRACE(sorted[i].cgroup);
    EXPECT_EQ(host_prefix + pods[i].cgroup, sorted[i].cgroup);
    EXPECT_EQ(pods[i].uid, sorted[i].uid);
    EXPECT_EQ(to_string(pods[i].qos), sorted[i].qos);
    EXPECT_EQ(to_string(pods[i].cls), sorted[i].cls);
    // Without the cpu controller (this host's cgroup2) no pod has a limit.
    EXPECT_EQ(pods[i].pool, limits_written ? sorted[i].pool : "shared");
  }
}

TEST(MakeTreeScript, ScratchDirectoryBothDrivers) {
  for (const std::string driver : {"systemd", "cgroupfs"}) {
    SCOPED_TRACE(driver);
    TempDir dir("tier-kube");
    const fs::path mount = dir.path() / "sys/fs/cgroup";
    fs::create_directories(mount);
    const auto announced = run_make_tree({mount.string(), driver});
    const std::string top = driver == "systemd" ? "kubepods.slice" : "kubepods";
    expect_discovered_as_announced(tier::SysRoot(dir.path()), dir.path().string(),
                                   "/sys/fs/cgroup/" + top, announced, true);
    run_make_tree({mount.string(), driver, "remove"});
    EXPECT_FALSE(fs::exists(mount / top));
  }
}

// Removes a real cgroup subtree deepest first (cgroup directories go with
// rmdir only), even when the test fails half-way.
class RealCgroupDir {
 public:
  explicit RealCgroupDir(fs::path path) : path_(std::move(path)) { fs::create_directory(path_); }
  ~RealCgroupDir() {
    std::error_code ec;
    std::vector<fs::path> dirs;
    for (fs::recursive_directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) dirs.push_back(it->path());
    }
    std::sort(dirs.rbegin(), dirs.rend());  // children sort after their parents
    for (const fs::path& dir : dirs) ::rmdir(dir.c_str());
    ::rmdir(path_.c_str());
  }
  RealCgroupDir(const RealCgroupDir&) = delete;
  RealCgroupDir& operator=(const RealCgroupDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The script on a real cgroup2 mount: mkdir only, cpu.max where allowed.
TEST(MakeTreeScript, RealCgroupV2Mount) {
  std::string mount;
  for (const char* candidate : {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"}) {
    const auto type = tier::test::run_command({"stat", "-f", "-c", "%T", candidate});
    if (type.exit_code == 0 && type.out == "cgroup2fs\n" && ::access(candidate, W_OK) == 0) {
      mount = candidate;
      break;
    }
  }
  if (mount.empty()) GTEST_SKIP() << "no writable cgroup2 mount";
  for (const std::string driver : {"systemd", "cgroupfs"}) {
    SCOPED_TRACE(driver);
    RealCgroupDir scratch(mount + "/tier-kube-test-" + std::to_string(::getpid()));
    const auto announced = run_make_tree({scratch.path().string(), driver});
    const std::string top =
        scratch.path().string() + "/" + (driver == "systemd" ? "kubepods.slice" : "kubepods");
    const bool limits =
        fs::exists(announced.empty() ? fs::path() : fs::path(announced[0].cgroup) / "cpu.max");
    expect_discovered_as_announced(tier::SysRoot("/"), "", top, announced, limits);
    run_make_tree({scratch.path().string(), driver, "remove"});
    EXPECT_FALSE(fs::exists(top));
  }
}

}  // namespace
