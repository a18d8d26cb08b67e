// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// page_fault: user page faults of tracked processes, as heat samples.
//
// Three programs hook the same x86 tracepoint (exceptions:page_fault_user);
// the loader (libtier/src/heat/bpf/page_fault.cpp) autoloads exactly
// one, trying them in this order:
//   1. tp_btf/page_fault_user      typed arguments, no tracefs needed
//   2. raw_tp/page_fault_user      untyped args[], no tracefs, no BTF needed
//   3. tracepoint/...              classic perf tracepoint; needs the event id
//                                  from tracefs (read in a private mount ns)
// All three funnel into record_fault(): filter by the tracked-tgid map,
// repeat-fault detection (tier_events.h: PF_PROT, or a page seen before),
// 1-in-N sampling per CPU, then one ringbuf record. Per-CPU counters account
// for every tracked fault exactly once (see tier_events.h).
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tier_events.h"
#include "tracked_tgids.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

// Keep 1 in sample_every tracked faults (per CPU); set before load.
const volatile __u32 sample_every = 1;

// Whether to look for repeat faults in the page cache below; the loader
// keeps it equal to (kernel.numa_balancing != 0), re-read at every poll:
// without balancing there are no hint faults, and the cache lookup is the
// larger part of this program's cost. Writable .bss, mmapped by the loader.
volatile __u32 detect_repeats = 0;

// Size is set by the loader before load (power of two, >= page size).
struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4 << 20);
} fault_events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct tier_fault_counters);
} fault_counters SEC(".maps");

// Pages tracked processes have faulted on, to tell a repeat fault (NUMA hint
// fault, refault) from a first touch: x86 reports both as "not present".
// A direct-mapped cache of page tags (not an LRU hash: an LRU insert per
// first touch more than doubled this program's cost, measured): slot = hash(tag), and a slot
// holds the last page that hashed there. A page is forgotten when another
// page takes its slot; its next fault then counts as a first touch. Word
// stores from several CPUs race harmlessly (one tag wins). 8 MiB.
#define TIER_PAGE_SLOTS (1u << 20)

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, TIER_PAGE_SLOTS);
  __type(key, __u32);
  __type(value, __u64);  // page tag + 1; 0 = empty
} faulted_pages SEC(".maps");

// Every tracked fault passes here, sampled or not, so the cache sees them all.
static __always_inline __u32 is_repeat(__u32 tgid, __u64 address, __u64 error_code) {
  // 47-bit user addresses leave page numbers of 35 bits: page << 22 | tgid
  // is unique for pid_max <= 4M (with 5-level paging distinct pages may
  // share a tag, which only risks calling a first touch a repeat).
  __u64 tag = ((address >> 12) << 22 ^ tgid) + 1;
  __u32 slot = (__u32)((tag * 0x9E3779B97F4A7C15ull) >> 44) & (TIER_PAGE_SLOTS - 1);
  __u64* stored = bpf_map_lookup_elem(&faulted_pages, &slot);
  if (!stored) return (error_code & TIER_PF_PROT) != 0;
  if (*stored == tag) return 1;
  *stored = tag;
  return (error_code & TIER_PF_PROT) != 0;
}

static __always_inline void record_fault(__u64 address, __u64 error_code) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  if (!tgid_tracked(tgid)) return;

  __u32 zero = 0;
  struct tier_fault_counters* counters = bpf_map_lookup_elem(&fault_counters, &zero);
  if (!counters) return;
  __u32 repeat =
      detect_repeats ? is_repeat(tgid, address, error_code) : (error_code & TIER_PF_PROT) != 0;
  // Per-CPU data, and BPF programs do not migrate while running: no atomics.
  // The seen count doubles as the sampling counter: on each CPU the 1st,
  // (N+1)th, (2N+1)th ... tracked fault is kept.
  __u64 nth = counters->count[TIER_FAULT_SEEN]++;
  if (sample_every > 1 && nth % sample_every != 0) {
    counters->count[TIER_FAULT_SAMPLED_OUT]++;
    return;
  }
  struct tier_fault_event* event = bpf_ringbuf_reserve(&fault_events, sizeof(*event), 0);
  if (!event) {
    counters->count[TIER_FAULT_DROPPED]++;
    return;
  }
  event->addr = address;
  event->time_ns = bpf_ktime_get_ns();
  event->tgid = tgid;
  event->tid = (__u32)pid_tgid;
  event->cpu = bpf_get_smp_processor_id();
  event->error_code = (__u32)error_code;
  event->repeat = repeat;
  event->pad = 0;
  bpf_ringbuf_submit(event, 0);
  counters->count[TIER_FAULT_DELIVERED]++;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(fault_tp_btf, unsigned long address, struct pt_regs* regs, unsigned long error_code) {
  record_fault(address, error_code);
  return 0;
}

// TP_PROTO(unsigned long address, struct pt_regs *regs, unsigned long error_code)
SEC("raw_tp/page_fault_user")
int fault_raw_tp(struct bpf_raw_tracepoint_args* ctx) {
  record_fault(ctx->args[0], ctx->args[2]);
  return 0;
}

// Hand-written because some kernels' BTF (this build machine's 6.18) lacks
// struct trace_event_raw_x86_exceptions. Layout of the tracepoint's format
// file: 8-byte common header, then address @8, ip @16, error_code @24.
struct tier_page_fault_user_ctx {
  __u64 common;
  __u64 address;
  __u64 ip;
  __u64 error_code;
};

SEC("tracepoint/exceptions/page_fault_user")
int fault_tracepoint(struct tier_page_fault_user_ctx* ctx) {
  record_fault(ctx->address, ctx->error_code);
  return 0;
}
