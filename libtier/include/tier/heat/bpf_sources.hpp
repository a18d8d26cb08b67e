// The eBPF heat sources (ebpf/page_fault.bpf.c, sched_node.bpf.c,
// kernel_migrations.bpf.c) and their loaders. docs/ebpf.md describes the
// programs, hooks, maps and what works on which kernel.
//
// Contract shared by the three classes:
//  - start() tries the program's hooks in order (tp_btf, raw_tp, classic
//    tracepoint; only one is loaded) and throws SourceError naming why each
//    failed when none attached ("BPF not permitted: run as root; ...").
//    Classic tracepoints never mount tracefs on the host: the event id is read
//    in a child's private mount namespace.
//  - attach_point() says which hook is attached ("" when not started).
//  - stop() detaches and frees everything; idempotent, noexcept, also run by
//    the destructor. Objects are movable, not copyable.
//  - Pids are thread-group ids in the initial pid namespace.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tier/heat/source.hpp"

namespace tier::heat {

/// Hooks of ebpf/page_fault.bpf.c, in the order BpfFaultSource tries them.
enum class FaultHook : std::uint8_t {
  tp_btf,      // "tp_btf/page_fault_user"
  raw_tp,      // "raw_tp/page_fault_user"
  tracepoint,  // "tracepoint/exceptions/page_fault_user" (event id via private tracefs)
};
const char* to_string(FaultHook hook);
std::vector<FaultHook> all_fault_hooks();

/// The page-fault program's per-CPU counters, summed over CPUs, since start().
/// seen == sampled_out + delivered + dropped (up to faults racing the read).
struct BpfFaultCounters {
  std::uint64_t seen = 0;         // faults of tracked processes
  std::uint64_t sampled_out = 0;  // skipped by 1-in-N sampling
  std::uint64_t delivered = 0;    // written to the ring buffer
  std::uint64_t dropped = 0;      // ring buffer full
};

/// User page faults of tracked processes, filtered in the kernel (name "bpf-fault").
///
/// Kind rule: SampleKind::hint_fault for a repeat fault, first_touch otherwise.
/// A fault is a repeat when the x86 error code has bit 0 (PF_PROT: the page
/// was present: copy-on-write, write-protect) or when this process already
/// faulted on the page while tracked (an in-kernel direct-mapped cache of
/// 2^20 page tags, consulted only while kernel.numa_balancing != 0, which
/// start() and every poll() re-read). The
/// second test is needed because x86 NUMA hint faults report "not present"
/// (PROT_NONE PTEs clear the hardware present bit). Limits: a refault after
/// reclaim or munmap+mmap at the same address also counts as a repeat, and a
/// page whose cache slot another page took counts as a first touch again.
/// Sampling keeps, on each CPU, the 1st, (N+1)th, (2N+1)th ... tracked fault,
/// so a process faulting k times on one CPU delivers ceil(k / N) samples.
/// poll() returns active == false ("process 123 exited") once every tracked
/// process has exited (zombies count as exited), after draining the ring.
class BpfFaultSource final : public HeatSource {
 public:
  /// Uses options.sample_every (>= 1), options.ring_bytes (rounded up to a
  /// power of two, at least one page) and options.root (process liveness).
  /// `hooks` restricts/reorders the chain (tests force each hook).
  explicit BpfFaultSource(const SourceOptions& options,
                          std::vector<FaultHook> hooks = all_fault_hooks());
  ~BpfFaultSource() override;
  BpfFaultSource(BpfFaultSource&&) noexcept;
  BpfFaultSource& operator=(BpfFaultSource&&) noexcept;

  std::string_view name() const override { return "bpf-fault"; }
  void start(const std::vector<pid_t>& pids) override;
  PollResult poll(std::vector<AccessSample>& out) override;
  /// Adds and removes tgids in the program's map: no reload, no new ring.
  bool retarget(const std::vector<pid_t>& pids) override;
  SourceCounters counters() const override;
  void stop() noexcept override;

  std::string attach_point() const;
  /// Why each hook tried before the attached one failed.
  std::vector<std::string> skipped_hooks() const;
  BpfFaultCounters raw_counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// On-CPU time of tracked processes per NUMA node, from sched_switch and the
/// scheduler's own per-thread run time (what /proc/PID/schedstat counts).
/// Time is credited when a thread switches out, to the node of the CPU it
/// leaves; the slice a thread is running at read() time is not included yet.
class BpfRunTimeTracker {
 public:
  BpfRunTimeTracker();
  ~BpfRunTimeTracker();
  BpfRunTimeTracker(BpfRunTimeTracker&&) noexcept;
  BpfRunTimeTracker& operator=(BpfRunTimeTracker&&) noexcept;

  /// cpu_node[cpu] = NUMA node of that CPU (-1 unknown; CPUs past the end are
  /// unknown too). `hooks` = labels to try, in order; empty = all
  /// ("tp_btf/sched_switch", "raw_tp/sched_switch").
  void start(const std::vector<pid_t>& pids, const std::vector<int>& cpu_node,
             const std::vector<std::string>& hooks = {});
  /// pid -> node -> nanoseconds on CPU (node -1: CPU with unknown node).
  std::map<pid_t, std::map<int, std::uint64_t>> read() const;
  void stop() noexcept;
  std::string attach_point() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// enum migrate_reason values (stable since 5.x; MR_DAMON since 6.11).
enum class MigrateReason : std::uint8_t {
  compaction = 0,
  memory_failure = 1,
  memory_hotplug = 2,
  syscall = 3,
  mempolicy_mbind = 4,
  numa_misplaced = 5,
  contig_range = 6,
  longterm_pin = 7,
  demotion = 8,
  damon = 9,
};
/// "compaction", "numa_misplaced", ...; "reason_<n>" for values this build does not name.
std::string migrate_reason_name(unsigned reason);

/// The kernel's own page migrations since start(), summed over CPUs.
struct KernelMigrationCounts {
  static constexpr std::size_t kReasons = 16;  // reasons >= 15 are counted in the last slot
  std::uint64_t calls = 0;                     // mm_migrate_pages events (migrate_pages() calls)
  std::uint64_t succeeded = 0;                 // pages migrated
  std::uint64_t failed = 0;                    // pages that failed to migrate
  std::uint64_t thp_succeeded = 0;             // THPs migrated (their pages are in succeeded too)
  std::uint64_t thp_failed = 0;
  std::array<std::uint64_t, kReasons> succeeded_by_reason{};  // index: MigrateReason

  std::uint64_t succeeded_for(MigrateReason reason) const {
    return succeeded_by_reason[static_cast<std::size_t>(reason)];
  }
};

/// Arguments of tracepoint `name` ("mm_migrate_pages") in a kernel's BTF,
/// from its `btf_trace_<name>` typedef (the leading `void *__data` not
/// counted): how raw_tp programs find positional arguments whose place moved
/// between kernels. `btf_path` "" = the running kernel's BTF. -errno when the
/// BTF cannot be read (-ENOENT when it has no such tracepoint).
int tracepoint_arg_count(const std::string& name, const std::string& btf_path = "");

/// Counts migrate:mm_migrate_pages: whole machine, no process filter.
class BpfMigrationCounter {
 public:
  BpfMigrationCounter();
  ~BpfMigrationCounter();
  BpfMigrationCounter(BpfMigrationCounter&&) noexcept;
  BpfMigrationCounter& operator=(BpfMigrationCounter&&) noexcept;

  /// `hooks` = labels to try, in order; empty = all ("raw_tp/mm_migrate_pages",
  /// "tracepoint/migrate/mm_migrate_pages").
  void start(const std::vector<std::string>& hooks = {});
  KernelMigrationCounts read() const;
  void stop() noexcept;
  std::string attach_point() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tier::heat
