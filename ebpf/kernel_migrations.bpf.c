// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// kernel_migrations: the kernel's own page migrations (compaction, NUMA
// balancing promotion, demotion, migrate_pages/move_pages/mbind, DAMON),
// counted from migrate:mm_migrate_pages, which migrate_pages() emits once per
// call with the call's totals.
//
// The tracepoint's prototype grew over time; every version starts with
// (succeeded, failed, thp_succeeded, thp_failed, ...) and ends with
// (..., enum migrate_mode mode, int reason):
//   6.1   (succeeded, failed, thp_succeeded, thp_failed, thp_split, mode, reason)
//   6.18  (succeeded, failed, thp_succeeded, thp_failed, thp_split,
//          large_folio_split, mode, reason)
// so the loader counts the prototype's arguments in the running kernel's BTF
// (btf_trace_mm_migrate_pages) and sets reason_arg = count - 1 before load.
// The branch on the read-only constant is resolved by the verifier, so the
// program never touches an argument the kernel does not pass (raw_tp attach
// refuses programs that read past the last argument).
//
// Programs, the loader (libtier/src/heat/bpf/kernel_migrations.cpp) autoloads one:
//   1. raw_tp/mm_migrate_pages       positional args[], no tracefs needed
//   2. tracepoint/migrate/...        CO-RE field access by name in
//                                    trace_event_raw_mm_migrate_pages;
//                                    event id from tracefs (private mount)
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tier_events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

// Index of `reason` in the raw tracepoint's args[]: 6 on 6.1, 7 on 6.18.
const volatile __u32 reason_arg = 7;

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct tier_migration_counters);
} migration_counters SEC(".maps");

static __always_inline void count(__u64 succeeded, __u64 failed, __u64 thp_succeeded,
                                  __u64 thp_failed, __u64 reason) {
  __u32 zero = 0;
  struct tier_migration_counters* c = bpf_map_lookup_elem(&migration_counters, &zero);
  if (!c) return;
  // Per-CPU value and no migration while a BPF program runs: no atomics.
  c->count[TIER_MIGRATE_CALLS]++;
  c->count[TIER_MIGRATE_SUCCEEDED] += succeeded;
  c->count[TIER_MIGRATE_FAILED] += failed;
  c->count[TIER_MIGRATE_THP_SUCCEEDED] += thp_succeeded;
  c->count[TIER_MIGRATE_THP_FAILED] += thp_failed;
  __u32 slot = reason < TIER_MIGRATE_REASONS ? (__u32)reason : TIER_MIGRATE_REASONS - 1;
  c->succeeded_by_reason[slot & (TIER_MIGRATE_REASONS - 1)] += succeeded;
}

// args[n] as one load at a constant offset from the unmodified ctx pointer.
// Plain C lets clang merge the branches above into a load from ctx + a
// computed offset, which the verifier rejects ("dereference of modified ctx
// ptr"); inline asm keeps each load where it is.
#define read_arg(ctx, n)                                                         \
  ({                                                                             \
    __u64 value;                                                                 \
    asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(value) : "r"(ctx), "i"((n)*8)); \
    value;                                                                       \
  })

SEC("raw_tp/mm_migrate_pages")
int migrate_raw_tp(struct bpf_raw_tracepoint_args* ctx) {
  __u64 reason;
  if (reason_arg == 7)
    reason = read_arg(ctx, 7);
  else if (reason_arg == 6)
    reason = read_arg(ctx, 6);
  else
    reason = read_arg(ctx, 5);  // pre-5.x prototypes without thp_split
  count(ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3], (__u32)reason);
  return 0;
}

SEC("tracepoint/migrate/mm_migrate_pages")
int migrate_tracepoint(struct trace_event_raw_mm_migrate_pages* ctx) {
  // vmlinux.h types carry preserve_access_index: each field offset is
  // relocated by name against the running kernel's BTF.
  count(ctx->succeeded, ctx->failed, ctx->thp_succeeded, ctx->thp_failed, (__u32)ctx->reason);
  return 0;
}
