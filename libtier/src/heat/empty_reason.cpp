#include "tier/heat/empty_reason.hpp"

#include <cstdio>
#include <cstdlib>

namespace tier::heat {

namespace {

std::string milliseconds(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f ms", static_cast<double>(ns) / 1e6);
  return text;
}

// What each source needs to see an access, for a process that ran but left
// no sample: the source's blind spot, then what the user can change.
std::string blind_spot(const std::string& source) {
  if (source == "pmu")
    return "every sampled load and store hit in the caches or was another process's; "
           "a longer --duration or a lower --sample-every samples more";
  if (source == "bpf-fault")
    return "it took no NUMA hint fault: the kernel's balancing scan had not unmapped any of "
           "its pages yet (kernel.numa_balancing_scan_delay_ms); a longer --duration waits "
           "for the scan";
  if (source == "perf-fault")
    return "it took no page fault: its pages were already mapped, and page faults show "
           "first touches only";
  if (source == "damon")
    return "DAMON found no region accessed in its aggregation windows; a longer --duration "
           "gives it more windows";
  if (source == "soft-dirty") return "it wrote none of its pages, and soft-dirty sees writes only";
  if (source == "idle-page")
    return "it referenced none of its tracked pages between two polls; a longer --interval "
           "gives each poll more time";
  return "the source reported nothing";
}

}  // namespace

std::optional<std::uint64_t> process_cpu_ns(const SysRoot& root, int pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::optional<std::uint64_t> total;
  for (const std::string& tid : root.list(tasks)) {
    const auto stat = root.read(tasks + "/" + tid + "/schedstat");
    if (!stat) continue;  // the thread exited meanwhile
    total = total.value_or(0) + std::strtoull(stat->c_str(), nullptr, 10);
  }
  return total;
}

std::string empty_reason(const HeatReport& report) {
  if (report.sources.empty()) return "no heat source ran";
  const SourceRun& primary = report.sources.front();
  if (primary.counters.samples > 0) return "";
  const std::string pid = std::to_string(report.pid);
  std::string head = "source " + primary.name + " saw no access of pid " + pid + ": ";
  if (primary.counters.drops > 0)
    return head + "all " + std::to_string(primary.counters.drops) +
           " of its samples were dropped (the ring buffer overflowed); a larger --interval "
           "or --sample-every drops fewer";
  if (report.tracked_bytes == 0)
    return head + "the process has no memory mapping a source can watch";
  if (!report.stopped_reason.empty() && report.epochs == 0)
    return head + "the run ended before its first epoch (" + report.stopped_reason + ")";
  if (report.cpu_ns && *report.cpu_ns == 0) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f s", report.seconds);
    return head + "the process was not on a CPU once in those " + seconds +
           " (0 ms of CPU time): a process that does not run touches no memory";
  }
  const std::string ran = report.cpu_ns ? " (it ran " + milliseconds(*report.cpu_ns) + ")" : "";
  return head + blind_spot(primary.name) + ran;
}

}  // namespace tier::heat
