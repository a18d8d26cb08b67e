// BpfMigrationCounter: loads ebpf/kernel_migrations.bpf.c with the position of
// `reason` taken from the running kernel's tracepoint prototype, and sums its
// per-CPU counters. See bpf_sources.hpp and the .bpf.c header.
#include <cerrno>
#include <cstring>

#include "hook_chain.hpp"
#include "hook_labels.hpp"
#include "kernel_migrations.skel.h"
#include "percpu.hpp"
#include "tier/heat/bpf_sources.hpp"
#include "tier_events.h"

namespace tier::heat {

std::string migrate_reason_name(unsigned reason) {
  static constexpr const char* kNames[] = {
      "compaction",     "memory_failure", "memory_hotplug", "syscall",  "mempolicy_mbind",
      "numa_misplaced", "contig_range",   "longterm_pin",   "demotion", "damon"};
  if (reason < std::size(kNames)) return kNames[reason];
  return "reason_" + std::to_string(reason);
}

namespace {

const std::vector<bpf::Hook>& migration_chain() {
  static const std::vector<bpf::Hook> chain{
      {"raw_tp/mm_migrate_pages", "migrate_raw_tp", "", ""},
      {"tracepoint/migrate/mm_migrate_pages", "migrate_tracepoint", "migrate", "mm_migrate_pages"},
  };
  return chain;
}

}  // namespace

struct BpfMigrationCounter::Impl {
  bpf::Attached<kernel_migrations_bpf> program;
  KernelMigrationCounts final_counts;  // kept by stop()

  KernelMigrationCounts read_counts() const {
    KernelMigrationCounts total;
    for (const tier_migration_counters& cpu : bpf::read_percpu_entry0<tier_migration_counters>(
             program.skel()->maps.migration_counters)) {
      total.calls += cpu.count[TIER_MIGRATE_CALLS];
      total.succeeded += cpu.count[TIER_MIGRATE_SUCCEEDED];
      total.failed += cpu.count[TIER_MIGRATE_FAILED];
      total.thp_succeeded += cpu.count[TIER_MIGRATE_THP_SUCCEEDED];
      total.thp_failed += cpu.count[TIER_MIGRATE_THP_FAILED];
      for (std::size_t r = 0; r < KernelMigrationCounts::kReasons; ++r) {
        total.succeeded_by_reason[r] += cpu.succeeded_by_reason[r];
      }
    }
    return total;
  }
};

static_assert(KernelMigrationCounts::kReasons == TIER_MIGRATE_REASONS);

BpfMigrationCounter::BpfMigrationCounter() : impl_(std::make_unique<Impl>()) {}
BpfMigrationCounter::~BpfMigrationCounter() {
  stop();
}
BpfMigrationCounter::BpfMigrationCounter(BpfMigrationCounter&&) noexcept = default;
BpfMigrationCounter& BpfMigrationCounter::operator=(BpfMigrationCounter&&) noexcept = default;

void BpfMigrationCounter::start(const std::vector<std::string>& hooks) {
  if (impl_->program) throw SourceError("migration counter: already started");
  std::vector<bpf::Hook> chain = bpf::select_hooks(migration_chain(), hooks);
  std::vector<std::string> skipped;
  // The raw tracepoint reads `reason` by position: only usable when the
  // prototype is known. Its earliest shape (no thp_split) has 6 arguments.
  const int args = tracepoint_arg_count("mm_migrate_pages");
  if (args < 6 || args > 8) {
    std::erase_if(chain, [](const bpf::Hook& hook) { return hook.tp_category.empty(); });
    skipped.push_back("raw_tp/mm_migrate_pages: prototype of btf_trace_mm_migrate_pages " +
                      (args < 0 ? std::string("not in the kernel BTF: ") + std::strerror(-args)
                                : "has " + std::to_string(args) + " arguments, expected 6-8"));
    if (chain.empty()) bpf::throw_no_hook("kernel migrations", skipped, false);
  }
  impl_->program = bpf::attach_first(
      "kernel migrations", chain,
      bpf::SkeletonApi<kernel_migrations_bpf>{
          kernel_migrations_bpf__open, kernel_migrations_bpf__load, kernel_migrations_bpf__destroy},
      [&](kernel_migrations_bpf* skel) {
        skel->rodata->reason_arg = static_cast<__u32>(args > 0 ? args - 1 : 7);
      },
      skipped);
  impl_->final_counts = {};
}

KernelMigrationCounts BpfMigrationCounter::read() const {
  if (!impl_) return {};
  return impl_->program ? impl_->read_counts() : impl_->final_counts;
}

void BpfMigrationCounter::stop() noexcept {
  if (!impl_ || !impl_->program) return;
  impl_->final_counts = impl_->read_counts();
  impl_->program.reset();
}

std::string BpfMigrationCounter::attach_point() const {
  return impl_ ? impl_->program.hook() : std::string();
}

}  // namespace tier::heat
