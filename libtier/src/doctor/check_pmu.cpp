// pmu: hardware performance counters, the precondition for PEBS/IBS sampling
// of memory accesses. sysfs says which PMUs the kernel registered; only a real
// perf_event_open says whether cycles can actually be counted (VMs often
// expose a `cpu` PMU without working counters, or none at all).
#include <cerrno>

#include "checks.hpp"
#include "tier/posix/error.hpp"
#include "tier/posix/text.hpp"

namespace tier::doctor {

namespace {

constexpr std::string_view kDevices = "/sys/bus/event_source/devices/";

// Core PMUs by name: "cpu" (Intel/AMD), "cpu_core"/"cpu_atom" (hybrid Intel).
std::vector<std::string> core_pmus(const SysRoot& root) {
  std::vector<std::string> found;
  for (const char* name : {"cpu", "cpu_core", "cpu_atom"}) {
    if (root.exists(std::string(kDevices) + name)) found.emplace_back(name);
  }
  return found;
}

// PEBS evidence: the load-latency format (ldlat) of a core PMU, and the PEBS
// capability names Intel exposes under caps/.
std::string pebs_evidence(const SysRoot& root, const std::vector<std::string>& pmus) {
  for (const auto& pmu : pmus) {
    std::string base = std::string(kDevices) + pmu;
    if (root.exists(base + "/format/ldlat")) return "PEBS load latency (" + pmu + "/format/ldlat)";
    if (root.exists(base + "/caps/pebs_events")) return "PEBS (" + pmu + "/caps/pebs_events)";
  }
  return {};
}

}  // namespace

CheckResult check_pmu(const Context& ctx) {
  CheckResult r;
  auto pmus = core_pmus(ctx.root);
  std::string pebs = pebs_evidence(ctx.root, pmus);
  bool ibs = ctx.root.exists(std::string(kDevices) + "ibs_op");

  std::vector<std::string> facts;
  facts.push_back(pmus.empty() ? "no core PMU in /sys/bus/event_source/devices"
                               : "core PMU: " + text::join(pmus, ","));
  facts.push_back(pebs.empty() ? "no PEBS" : pebs);
  facts.push_back(ibs ? "IBS (ibs_op)" : "no IBS");
  if (auto pmu_name = ctx.root.read(std::string(kDevices) + "cpu/caps/pmu_name")) {
    facts.push_back("pmu_name=" + *pmu_name);
  }
  const std::string sampling_impact =
      "no hardware memory-access sampling (PEBS/IBS): heat comes from page faults, DAMON and "
      "NUMA hint faults only";

  if (ctx.probers.perf == nullptr) {
    facts.emplace_back(kNotProbed);
    r.detail = text::join(facts, "; ");
    r.status = pmus.empty() && !ibs ? Status::missing : Status::error;
    r.impact = r.status == Status::missing ? sampling_impact : "perf_event_open not tried";
    return r;
  }

  ProbeOutcome outcome = ctx.probers.perf->open_cpu_cycles();
  if (outcome.ok()) {
    facts.insert(facts.begin(), "cycles counter opens");
    r.status = Status::ok;
    r.detail = text::join(facts, "; ");
    if (pebs.empty() && !ibs) {
      r.impact = "counters work but neither PEBS nor IBS: no precise memory-access sampling";
    }
    return r;
  }
  facts.insert(facts.begin(), outcome.step + ": " + posix::errno_text(outcome.error));
  if (auto paranoid = ctx.root.read_int("/proc/sys/kernel/perf_event_paranoid")) {
    facts.push_back("perf_event_paranoid=" + std::to_string(*paranoid));
  }
  r.detail = text::join(facts, "; ");
  if (outcome.error == EACCES || outcome.error == EPERM) {
    r.status = Status::error;
    r.impact = "not permitted: run as root or lower kernel.perf_event_paranoid to probe";
  } else {
    // ENOENT/EOPNOTSUPP/ENODEV: the kernel has no hardware event to give.
    r.status = Status::missing;
    r.impact = sampling_impact;
  }
  return r;
}

}  // namespace tier::doctor
