// Doctor: probes of the kernel features tier depends on, for `tierctl doctor`.
//
// Contract: run_checks() returns one CheckResult per check, always in the same
// order and always the full list (check_names()), whatever the machine has.
// `ok` means tier can use the feature, `missing` means the kernel lacks it (or
// has it switched off at build time), `error` means the probe could not decide
// (no permission, --root given for a live-only probe, unreadable files).
//
// File-based checks read through SysRoot, so they follow `--root DIR`. Checks
// that must exercise the running kernel (BPF load+attach, perf_event_open, the
// soft-dirty pagemap test) go through the prober interfaces below; they run
// only when a prober is given, and run_checks(root) gives live probers only for
// a live root, so a gathered tree is never mixed with facts of the host.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tier::doctor {

enum class Status { ok, missing, error };
const char* to_string(Status status);

struct CheckResult {
  std::string name;
  Status status = Status::error;
  std::string detail;  // what was found, with the numbers (versions, modes, errno)
  std::string impact;  // what a non-ok result means for tier; may be empty when ok
};

/// One attempt to use a kernel mechanism. `error` is the errno of the failing
/// `step` ("open", "load", "attach", "perf_event_open", ...), 0 on success.
struct ProbeOutcome {
  int error = 0;
  std::string step;
  std::string message;                  // extra evidence (libbpf's last warning, notes)
  std::optional<std::uint64_t> events;  // events counted after triggering, when measured
  bool ok() const { return error == 0; }
};

enum class BpfProgram { tracepoint, tp_btf, kprobe };
const char* to_string(BpfProgram program);

/// Loads and attaches exactly one program of ebpf/feature_probe.bpf.c, triggers
/// its event and reports how many events it counted.
class BpfProber {
 public:
  virtual ~BpfProber() = default;
  virtual ProbeOutcome probe(BpfProgram program) = 0;
};

/// Opens a hardware CPU-cycles perf event on the calling thread.
class PerfProber {
 public:
  virtual ~PerfProber() = default;
  virtual ProbeOutcome open_cpu_cycles() = 0;
};

/// The soft-dirty round trip on one private anonymous page: write, clear_refs
/// "4", write again; pagemap bit 55 read after each step.
struct SoftDirtyOutcome {
  ProbeOutcome run;  // failure of the test machinery itself (mmap, pagemap, clear_refs)
  bool dirty_after_write = false;
  bool clean_after_clear = false;
  bool dirty_after_rewrite = false;
};

class SoftDirtyProber {
 public:
  virtual ~SoftDirtyProber() = default;
  virtual SoftDirtyOutcome run() = 0;
};

/// Live mechanisms to exercise; a null member means "do not probe" and the
/// matching checks report status error with "not probed".
struct Probers {
  BpfProber* bpf = nullptr;
  PerfProber* perf = nullptr;
  SoftDirtyProber* soft_dirty = nullptr;
};

/// Probers that use the running kernel. The BPF prober works in a child
/// process (private mount namespace when tracefs must be mounted), so nothing
/// it does stays behind in the caller.
std::unique_ptr<BpfProber> make_live_bpf_prober();
std::unique_ptr<PerfProber> make_live_perf_prober();
std::unique_ptr<SoftDirtyProber> make_live_soft_dirty_prober();

/// Names of all checks, in report order.
const std::vector<std::string_view>& check_names();

/// All checks against `root`, live mechanisms through `probers`.
std::vector<CheckResult> run_checks(const SysRoot& root, const Probers& probers);
/// All checks; live probers when root.is_live(), none otherwise.
std::vector<CheckResult> run_checks(const SysRoot& root);

/// The result named `name`, or nullptr.
const CheckResult* find(const std::vector<CheckResult>& results, std::string_view name);

/// {"checks":[{"name":..,"status":"ok"|"missing"|"error","detail":..,"impact":..}]}
std::string to_json(const std::vector<CheckResult>& results);

}  // namespace tier::doctor
