#include "workloads/kubepods.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "workloads/cgroup_fs.hpp"

namespace tierd {

namespace {

// Where one QoS class's pods live under the kubepods root, and how their
// directories are named: PREFIX<uid>SUFFIX inside `parent` ("" = the root).
struct PodLayout {
  PodWorkload::Qos qos;
  std::string_view parent;
  std::string_view prefix;
  std::string_view suffix;
};

constexpr PodLayout kSystemdLayouts[] = {
    {PodWorkload::Qos::guaranteed, "", "kubepods-pod", ".slice"},
    {PodWorkload::Qos::burstable, "kubepods-burstable.slice", "kubepods-burstable-pod", ".slice"},
    {PodWorkload::Qos::besteffort, "kubepods-besteffort.slice", "kubepods-besteffort-pod",
     ".slice"},
};
constexpr PodLayout kCgroupfsLayouts[] = {
    {PodWorkload::Qos::guaranteed, "", "pod", ""},
    {PodWorkload::Qos::burstable, "burstable", "pod", ""},
    {PodWorkload::Qos::besteffort, "besteffort", "pod", ""},
};

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The pod uid in a directory name of this layout, dash form; nullopt for any
// other name (a container, a QoS parent, junk). Uids are hex and dashes
// (underscores in systemd's spelling).
std::optional<std::string> pod_uid(std::string_view name, const PodLayout& layout) {
  if (name.size() <= layout.prefix.size() + layout.suffix.size() ||
      name.substr(0, layout.prefix.size()) != layout.prefix ||
      name.substr(name.size() - layout.suffix.size()) != layout.suffix) {
    return std::nullopt;
  }
  std::string_view uid =
      name.substr(layout.prefix.size(), name.size() - layout.prefix.size() - layout.suffix.size());
  const bool well_formed = std::all_of(uid.begin(), uid.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  if (!well_formed) return std::nullopt;
  return normalize_pod_uid(uid);
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// quota/period in microseconds, as the kernel enforces it.
struct CpuQuota {
  std::int64_t quota = 0;
  std::int64_t period = 0;
  double cpus() const { return static_cast<double>(quota) / static_cast<double>(period); }
  bool whole() const { return quota >= period && quota % period == 0; }
};

// The limit set on this very directory: std::nullopt when it has no cpu
// controller files; an inner nullopt when they say "unlimited" or are garbled.
std::optional<std::optional<CpuQuota>> quota_in(const tier::SysRoot& root, const std::string& dir) {
  if (auto max = root.read(dir + "/cpu.max")) {  // cgroup v2: "QUOTA PERIOD" or "max PERIOD"
    std::istringstream fields(*max);
    std::string quota, period;
    fields >> quota >> period;
    auto q = parse_integer(quota);
    auto p = parse_integer(period);
    if (!q || !p || *q <= 0 || *p <= 0) return std::optional<CpuQuota>{};
    return std::optional<CpuQuota>(CpuQuota{*q, *p});
  }
  auto quota = root.read(dir + "/cpu.cfs_quota_us");  // cgroup v1: -1 = unlimited
  if (!quota) return std::nullopt;
  auto q = parse_integer(*quota);
  auto p = root.read_int(dir + "/cpu.cfs_period_us");
  if (!q || !p || *q <= 0 || *p <= 0) return std::optional<CpuQuota>{};
  return std::optional<CpuQuota>(CpuQuota{*q, *p});
}

std::optional<CpuQuota> pod_quota(const tier::SysRoot& root, const std::string& pod_cgroup) {
  if (auto here = quota_in(root, pod_cgroup)) return *here;
  // cgroup v1: the pod seen from another hierarchy (cpuset, memory) has the
  // same path below the cpu hierarchy's mount.
  const std::string mount = std::string(detail::kCgroupMount) + "/";
  if (pod_cgroup.compare(0, mount.size(), mount) != 0) return std::nullopt;
  const auto slash = pod_cgroup.find('/', mount.size());
  if (slash == std::string::npos) return std::nullopt;
  const std::string below = pod_cgroup.substr(slash);
  for (const char* hierarchy : {"cpu", "cpu,cpuacct"}) {
    const std::string twin = mount + hierarchy + below;
    if (twin == pod_cgroup) continue;
    if (auto there = quota_in(root, twin)) return *there;
  }
  return std::nullopt;
}

std::string cpus_text(double cpus) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, cpus);
  std::string text = ec == std::errc() ? std::string(buffer, end) : std::to_string(cpus);
  return text + (cpus == 1.0 ? " CPU" : " CPUs");
}

// The QoS mapping, before overrides.
void classify(PodWorkload& pod, const std::optional<CpuQuota>& quota) {
  std::string why = to_string(pod.qos);
  switch (pod.qos) {
    case PodWorkload::Qos::guaranteed:
      pod.cls = WorkloadClass::online;
      if (quota && quota->whole()) {
        pod.pool = "exclusive:" + std::to_string(quota->quota / quota->period);
        why += ", " + cpus_text(quota->cpus());
      } else if (quota) {
        why += ", " + cpus_text(quota->cpus()) + " (not whole)";
      } else {
        why += ", no CPU limit";
      }
      break;
    case PodWorkload::Qos::burstable:
      pod.cls = WorkloadClass::online;
      break;
    case PodWorkload::Qos::besteffort:
      pod.cls = WorkloadClass::offline;
      break;
  }
  pod.source_reason = why + " -> " + to_string(pod.cls) + " " + pod.pool;
}

void apply_override(PodWorkload& pod, const PodOverride& entry) {
  std::string what;
  auto note = [&what](const std::string& item) { what += (what.empty() ? "" : ", ") + item; };
  if (entry.workload_class) {
    pod.cls = *entry.workload_class;
    note(std::string("class ") + to_string(pod.cls));
  }
  if (entry.pool) {
    pod.pool = *entry.pool;
    note("pool " + pod.pool);
  }
  if (entry.quota) {
    pod.quota = *entry.quota;
    note("quota " + (pod.quota.none() ? std::string("none") : to_string(pod.quota)));
  }
  pod.source_reason += "; override " + entry.where + ": " + what;
}

}  // namespace

const char* to_string(CgroupDriver driver) {
  return driver == CgroupDriver::systemd ? "systemd" : "cgroupfs";
}

CgroupDriver detect_cgroup_driver(const std::string& kubepods_root) {
  std::string_view path = kubepods_root;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const std::string_view name = basename_of(path);
  constexpr std::string_view kSlice = ".slice";
  const bool slice =
      name.size() > kSlice.size() && name.substr(name.size() - kSlice.size()) == kSlice;
  return slice ? CgroupDriver::systemd : CgroupDriver::cgroupfs;
}

const char* to_string(PodWorkload::Qos qos) {
  switch (qos) {
    case PodWorkload::Qos::guaranteed:
      return "Guaranteed";
    case PodWorkload::Qos::burstable:
      return "Burstable";
    case PodWorkload::Qos::besteffort:
      return "BestEffort";
  }
  return "?";
}

std::optional<double> read_pod_cpu_limit(const tier::SysRoot& root, const std::string& pod_cgroup) {
  if (auto quota = pod_quota(root, pod_cgroup)) return quota->cpus();
  return std::nullopt;
}

std::vector<PodWorkload> discover_pods(const tier::SysRoot& root, const std::string& kubepods_root,
                                       const PodOverrides& overrides) {
  const std::string base = detail::normalize_cgroup_path(kubepods_root);
  const bool systemd = detect_cgroup_driver(base) == CgroupDriver::systemd;
  std::vector<PodWorkload> pods;
  for (const PodLayout& layout : systemd ? kSystemdLayouts : kCgroupfsLayouts) {
    const std::string parent =
        layout.parent.empty() ? base : base + "/" + std::string(layout.parent);
    for (const std::string& dir : detail::child_cgroups(root, parent)) {
      auto uid = pod_uid(basename_of(dir), layout);
      if (!uid) continue;
      PodWorkload pod;
      pod.uid = std::move(*uid);
      pod.cgroup = dir;
      pod.qos = layout.qos;
      const std::optional<CpuQuota> quota = pod_quota(root, dir);
      if (quota) pod.cpu_limit = quota->cpus();
      classify(pod, quota);
      if (const PodOverride* entry = overrides.find(pod.uid)) apply_override(pod, *entry);
      pods.push_back(std::move(pod));
    }
  }
  std::sort(pods.begin(), pods.end(),
            [](const PodWorkload& a, const PodWorkload& b) { return a.cgroup < b.cgroup; });
  return pods;
}

}  // namespace tierd
