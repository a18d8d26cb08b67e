// bpf_tracepoint, tp_btf, kprobes: decisions from real load+attach attempts.
//
// The BpfProber does the work; this file only turns its outcome into a
// status: errno values the kernel uses for "no such mechanism" mean missing,
// permission errors and anything unexpected mean we could not decide.
#include <cerrno>

#include "checks.hpp"
#include "kernel_config.hpp"
#include "tier/posix/error.hpp"

namespace tier::doctor {

namespace {

bool is_permission_error(int error) {
  return error == EPERM || error == EACCES;
}

// Errnos with which load/attach says "this kernel has no such thing".
bool is_absent_error(int error) {
  return error == ENOENT || error == EOPNOTSUPP || error == ENOTSUP || error == EINVAL ||
         error == ENODEV || error == ENOSYS || error == ESRCH;
}

CheckResult judge(const Context& ctx, BpfProgram program, std::string_view impact_missing) {
  CheckResult r;
  if (ctx.probers.bpf == nullptr) {
    r.status = Status::error;
    r.detail = std::string(kNotProbed);
    r.impact = "unknown whether " + std::string(to_string(program)) + " programs work";
    return r;
  }
  ProbeOutcome outcome = ctx.probers.bpf->probe(program);
  std::string what = to_string(program);
  std::string note = outcome.message.empty() ? "" : "; " + outcome.message;
  if (outcome.ok()) {
    if (outcome.events.has_value() && *outcome.events == 0) {
      r.status = Status::error;
      r.detail = what + " loaded and attached but counted 0 events after triggering" + note;
      r.impact = "attach reports success yet no event arrives; do not rely on it";
      return r;
    }
    r.status = Status::ok;
    r.detail = what + " loaded and attached";
    if (outcome.events) r.detail += ", " + std::to_string(*outcome.events) + " events counted";
    r.detail += note;
    return r;
  }
  r.detail = what + ": " + outcome.step + " failed: " + posix::errno_text(outcome.error) + note;
  if (is_permission_error(outcome.error)) {
    r.status = Status::error;
    r.impact =
        "not permitted: run as root to probe (loading needs CAP_BPF and CAP_PERFMON, the private "
        "tracefs mount CAP_SYS_ADMIN)";
  } else if (is_absent_error(outcome.error)) {
    r.status = Status::missing;
    r.impact = std::string(impact_missing);
  } else {
    r.status = Status::error;
    r.impact = "probe failed unexpectedly; " + std::string(impact_missing);
  }
  return r;
}

}  // namespace

CheckResult check_bpf_tracepoint(const Context& ctx) {
  return judge(ctx, BpfProgram::tracepoint,
               "no classic tracepoint programs: page-fault heat falls back to tp_btf or perf "
               "software page-fault sampling");
}

CheckResult check_tp_btf(const Context& ctx) {
  return judge(ctx, BpfProgram::tp_btf,
               "no BTF-typed tracepoints: eBPF sources use classic tracepoints with hand-written "
               "context layouts");
}

CheckResult check_kprobes(const Context& ctx) {
  CheckResult r = judge(ctx, BpfProgram::kprobe,
                        "eBPF sources use tracepoints only; no kprobe precision (no hooks on "
                        "kernel functions without a tracepoint)");
  // The kprobe PMU and the build config are supporting evidence, reported
  // whatever the attach said, so a missing result explains itself.
  bool pmu = ctx.root.exists("/sys/bus/event_source/devices/kprobe");
  r.detail += pmu ? "; kprobe PMU present (/sys/bus/event_source/devices/kprobe)"
                  : "; no kprobe PMU (/sys/bus/event_source/devices/kprobe absent)";
  if (auto config = read_kernel_config(ctx.root)) {
    r.detail += "; " + config->describe("CONFIG_KPROBES");
  }
  return r;
}

}  // namespace tier::doctor
