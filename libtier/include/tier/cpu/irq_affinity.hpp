// IRQ isolation: keep device interrupts off the CPUs of exclusive pools by
// rewriting /proc/irq/*/smp_affinity_list, and put the original lists back.
//
// Contract: isolate(cpus) makes every IRQ's affinity its ORIGINAL list (the
// one found before this object first changed it) minus `cpus`, so calling it
// again with another set re-targets cleanly and IRQs no longer concerned get
// their originals back. An IRQ is skipped, and reported with the reason,
// when nothing of its list would remain, when its file is unreadable or
// malformed, or when the kernel refuses the write (EIO/EINVAL: managed and
// per-CPU IRQs, whose affinity the kernel owns). /proc/irq/default_smp_affinity,
// the mask new IRQs start with, is narrowed the same way. restore() writes
// every original back (the destructor does too); it never throws. All paths
// go through the SysRoot, and the write itself through an injectable
// IrqWriter, so tests run on a fixture tree and can play the kernel's refusals.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tier/cpu/cpulist.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::cpu {

/// Writes `value` to an existing file; returns 0 or the errno of the failure.
using IrqWriter = std::function<int(const std::filesystem::path& file, const std::string& value)>;

/// The real writer: open(O_WRONLY|O_TRUNC, no O_CREAT) + one write(), as the kernel's
/// proc handlers expect the whole list in one write.
int write_proc_file(const std::filesystem::path& file, const std::string& value);

struct IrqMove {
  unsigned irq = 0;
  CpuList before, after;
};

struct IrqSkip {
  unsigned irq = 0;
  CpuList affinity;    // as read (empty when unreadable)
  std::string reason;  // "would leave no CPU", "kernel refused (EIO ...): managed or per-CPU IRQ"
};

struct IrqReport {
  std::vector<IrqMove> moved;     // affinity rewritten this call
  std::vector<IrqMove> restored;  // given back their original (no longer touch `cpus`)
  std::vector<IrqSkip> skipped;
  std::optional<IrqMove> default_affinity;  // irq field unused
  std::string default_affinity_error;       // why default_smp_affinity was left alone, or ""
};

class IrqIsolation {
 public:
  explicit IrqIsolation(SysRoot root, IrqWriter writer = write_proc_file);
  ~IrqIsolation() { restore(); }
  IrqIsolation(const IrqIsolation&) = delete;
  IrqIsolation& operator=(const IrqIsolation&) = delete;

  /// Keeps IRQs off `cpus` (see the contract above).
  IrqReport isolate(const CpuList& cpus);
  /// Writes every remembered original back; failures land in restore_failures().
  void restore() noexcept;

  /// IRQs currently held away from their original list, with that original.
  const std::map<unsigned, CpuList>& originals() const { return originals_; }
  /// What the last restore() could not write back.
  const std::vector<IrqSkip>& restore_failures() const { return restore_failures_; }

 private:
  SysRoot root_;
  IrqWriter writer_;
  std::map<unsigned, CpuList> originals_;
  std::optional<std::string> original_default_;  // default_smp_affinity text as read
  std::vector<IrqSkip> restore_failures_;
};

/// CpuList in the kernel's mask syntax ("ff,00000001": 32-bit hex words,
/// most significant first), as /proc/irq/default_smp_affinity takes it.
std::string to_mask(const CpuList& cpus);

}  // namespace tier::cpu
