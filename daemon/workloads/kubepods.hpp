// Kubernetes-shaped workload discovery: the pods kubelet created under its
// kubepods cgroup tree, their QoS class, their CPU limit, and the tier class
// and CPU pool each gets (docs/kubernetes.md).
//
// Contract: discover_pods() only reads directories and cpu files through the
// SysRoot it is given (tests point it at a fixture tree) and never throws: a
// missing root is no pods, an unreadable CPU limit is "no limit". It knows
// both kubelet cgroup drivers, told apart by the root's name: systemd
// ("kubepods.slice": kubepods-pod<uid>.slice, kubepods-burstable.slice/
// kubepods-burstable-pod<uid>.slice, kubepods-besteffort.slice/...) and
// cgroupfs ("kubepods": pod<uid>, burstable/pod<uid>, besteffort/pod<uid>).
// Only cgroup directories (holding cgroup.procs) whose names fit the driver's
// pod pattern are pods; containers below a pod and any other directory are
// ignored. The mapping: Guaranteed with a whole number N >= 1 of CPUs ->
// online "exclusive:N"; Guaranteed otherwise and Burstable -> online
// "shared"; BestEffort -> offline "shared"; a matching PodOverrides entry
// then replaces any of class, pool and quota.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tier/posix/sysroot.hpp"
#include "workloads/pod_overrides.hpp"
#include "workloads/registry.hpp"

namespace tierd {

enum class CgroupDriver { systemd, cgroupfs };
/// "systemd" or "cgroupfs".
const char* to_string(CgroupDriver driver);
/// systemd when the root's last component ends in ".slice", else cgroupfs.
CgroupDriver detect_cgroup_driver(const std::string& kubepods_root);

struct PodWorkload {
  enum class Qos { guaranteed, burstable, besteffort };

  std::string uid;     // dash form ("1f2e3d4c-...")
  std::string cgroup;  // absolute kernel path of the pod's cgroup directory
  Qos qos = Qos::besteffort;
  std::optional<double> cpu_limit;  // CPUs (quota / period); nullopt = unlimited or unknown
  WorkloadClass cls = WorkloadClass::normal;
  std::string pool = "shared";
  Quota quota;                // only an override sets one
  std::string source_reason;  // "Guaranteed, 2 CPUs -> online exclusive:2"

  bool operator==(const PodWorkload&) const = default;
};

/// "Guaranteed", "Burstable", "BestEffort" (Kubernetes' spelling).
const char* to_string(PodWorkload::Qos qos);

/// The pod's CPU limit from its cgroup: v2 cpu.max ("200000 100000" = 2 CPUs,
/// "max 100000" = none) or v1 cpu.cfs_quota_us / cpu.cfs_period_us (quota -1 =
/// none). For a pod under another v1 hierarchy (/sys/fs/cgroup/cpuset/...) the
/// same path under the cpu hierarchy (cpu, then cpu,cpuacct) is read.
std::optional<double> read_pod_cpu_limit(const tier::SysRoot& root, const std::string& pod_cgroup);

/// Every pod under `kubepods_root` (an absolute kernel path such as
/// /sys/fs/cgroup/kubepods.slice or /sys/fs/cgroup/cpuset/kubepods), sorted by
/// cgroup path, with its class and pool decided as described above.
std::vector<PodWorkload> discover_pods(const tier::SysRoot& root, const std::string& kubepods_root,
                                       const PodOverrides& overrides = {});

}  // namespace tierd
