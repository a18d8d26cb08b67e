// read_kernel_tiering(): NUMA balancing, demotion, and the summary; DAMON
// and weighted interleave have their own files.
#include "tier/kernel_tiering/kernel_tiering.hpp"

#include <cerrno>
#include <climits>

#include "kernel_tiering/kernel_tiering_files.hpp"
#include "posix/mounts.hpp"

namespace tier {

namespace kernel_tiering {

namespace {

constexpr std::string_view kSysctl = "/proc/sys/kernel/";
constexpr std::string_view kDebugfs = "/sys/kernel/debug";
constexpr std::string_view kDebugNb = "/sys/kernel/debug/sched/numa_balancing";

// Why the debugfs numa_balancing directory cannot be read when a file in it
// is absent (ENOENT), or empty when the directory is there (then only that
// one file is missing).
std::string debugfs_missing(const SysRoot& root) {
  auto mounts = posix::read_mounts(root);
  if (!mounts.empty()) {
    bool mounted = false;
    for (const auto& m : mounts) mounted |= m.fstype == "debugfs" && m.mount_point == kDebugfs;
    if (!mounted) return "debugfs not mounted at /sys/kernel/debug";
  } else if (root.list(kDebugfs).empty()) {
    // A gathered tree has no mount table: an empty directory is what an
    // unmounted debugfs looks like.
    return "debugfs not mounted (/sys/kernel/debug is empty or missing)";
  }
  if (!root.exists("/sys/kernel/debug/sched")) {
    return "debugfs has no sched/ directory (CONFIG_SCHED_DEBUG off)";
  }
  if (!root.exists(kDebugNb)) {
    return "debugfs has no sched/numa_balancing/ (CONFIG_NUMA_BALANCING off)";
  }
  return {};
}

// A debugfs knob: why_not says which of debugfs / the directory / the file
// is missing, or the errno (EACCES without root).
Probed<std::uint64_t> debugfs_knob(const SysRoot& root, std::string_view name,
                                   std::string_view if_file_missing) {
  std::string path = std::string(kDebugNb) + "/" + std::string(name);
  FileText file = read_file(root, path);
  if (file.text) return to_u64(path, file, "");
  if (file.error != ENOENT) return Probed<std::uint64_t>::unknown(unreadable(path, file, ""));
  std::string why = debugfs_missing(root);
  return Probed<std::uint64_t>::unknown(why.empty() ? std::string(if_file_missing) : why);
}

// The scanner knobs were sysctls (/proc/sys/kernel/numa_balancing_scan_*)
// until 5.13 moved them to debugfs; read whichever this kernel has.
Probed<std::uint64_t> scan_knob(const SysRoot& root, std::string_view name) {
  std::string sysctl = std::string(kSysctl) + "numa_balancing_" + std::string(name);
  if (root.exists(sysctl)) return read_u64(root, sysctl, "");
  return debugfs_knob(root, name,
                      "no " + std::string(name) + " in debugfs sched/numa_balancing/ nor in " +
                          std::string(kSysctl));
}

}  // namespace

NumaBalancing read_numa_balancing(const SysRoot& root) {
  NumaBalancing nb;
  auto mode = read_u64(root, "/proc/sys/kernel/numa_balancing",
                       "no /proc/sys/kernel/numa_balancing (CONFIG_NUMA_BALANCING off or no NUMA)");
  if (mode.value && *mode.value > UINT_MAX) {
    nb.mode = Probed<unsigned>::unknown("/proc/sys/kernel/numa_balancing: value " +
                                        std::to_string(*mode.value) + " out of range");
  } else if (mode.value) {
    nb.mode = Probed<unsigned>::known(static_cast<unsigned>(*mode.value));
  } else {
    nb.mode = Probed<unsigned>::unknown(mode.why_not);
  }
  nb.promote_rate_limit_mbps =
      read_u64(root, "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps",
               "kernel has no memory tiering mode (numa_balancing_promote_rate_limit_MBps missing; "
               "added in 6.0)");
  nb.hot_threshold_ms = debugfs_knob(
      root, "hot_threshold_ms",
      "no hot_threshold_ms in debugfs sched/numa_balancing/ (kernel older than 6.0: no memory "
      "tiering mode)");
  nb.scan_delay_ms = scan_knob(root, "scan_delay_ms");
  nb.scan_period_min_ms = scan_knob(root, "scan_period_min_ms");
  nb.scan_period_max_ms = scan_knob(root, "scan_period_max_ms");
  nb.scan_size_mb = scan_knob(root, "scan_size_mb");
  return nb;
}

}  // namespace kernel_tiering

KernelTiering read_kernel_tiering(const SysRoot& root) {
  KernelTiering kt;
  kt.numa_balancing = kernel_tiering::read_numa_balancing(root);
  kt.demotion_enabled = kernel_tiering::read_bool(
      root, "/sys/kernel/mm/numa/demotion_enabled",
      "no /sys/kernel/mm/numa/demotion_enabled (kernel older than 5.15, or CONFIG_NUMA / "
      "CONFIG_MIGRATION off)");
  kt.damon = kernel_tiering::read_damon(root);
  kt.weighted_interleave = kernel_tiering::read_weighted_interleave(root);
  return kt;
}

bool KernelTiering::damon_acts() const {
  return !damon_acting_schemes().empty();
}

std::vector<std::string> KernelTiering::damon_acting_schemes() const {
  std::vector<std::string> out;
  for (const auto& k : damon.kdamonds) {
    if (!k.running()) continue;
    for (const auto& c : k.contexts) {
      for (const auto& s : c.schemes) {
        if (s.effect() == DamonEffect::none) continue;
        std::string line = "kdamond " + std::to_string(k.index) + " context " +
                           std::to_string(c.index) + " scheme " + std::to_string(s.index) + ": " +
                           *s.action.value;
        if (!s.dests.empty()) {
          line += " ->";
          for (const auto& d : s.dests) {
            line +=
                " node " + std::to_string(d.node) + " (weight " + std::to_string(d.weight) + ")";
          }
        } else if (s.target_nid && *s.target_nid >= 0) {
          line += " -> node " + std::to_string(*s.target_nid);
        }
        out.push_back(std::move(line));
      }
    }
  }
  for (const auto& m : damon.modules) {
    if (m.effect != DamonEffect::none && m.enabled.value.value_or(false)) {
      out.push_back("module " + m.name + ": " + to_string(m.effect));
    }
  }
  return out;
}

}  // namespace tier
