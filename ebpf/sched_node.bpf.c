// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// sched_node: on-CPU time of tracked processes per NUMA node.
//
// On every context switch the slice that just ended is credited to the
// process that ran it, under the node of the CPU it ran on (cpu_node, filled
// by the loader). Only slices that began while this program was attached
// count, and a slice is credited when it ends: a task still running when the
// map is read has its current slice missing (at most one tick's worth for a
// task that shares its CPU, the whole run for one alone on an idle CPU).
//
// Programs, the loader (bpf_run_time_tracker.cpp) autoloads one:
//   1. tp_btf/sched_switch   typed task_struct pointers
//   2. raw_tp/sched_switch   same arguments read with CO-RE from args[]
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tier_events.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TIER_MAX_CPUS 4096

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u32);  // tgid
  __type(value, __u8);
} tracked_tgids SEC(".maps");

// CPU id -> NUMA node; the loader writes every CPU (-1 when unknown).
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, TIER_MAX_CPUS);
  __type(key, __u32);
  __type(value, __s32);
} cpu_node SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, struct tier_node_key);
  __type(value, __u64);  // nanoseconds on CPU
} run_time_ns SEC(".maps");

// What this CPU is running now, when it is a tracked process.
struct running_slice {
  __u64 since_ns;
  __u32 tgid;  // 0: nothing tracked running
  __u32 pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct running_slice);
} running SEC(".maps");

static __always_inline void credit(__u32 tgid, __u64 ns) {
  __u32 cpu = bpf_get_smp_processor_id();
  __s32* node = bpf_map_lookup_elem(&cpu_node, &cpu);
  struct tier_node_key key = {.tgid = tgid, .node = node ? *node : -1};
  __u64* total = bpf_map_lookup_elem(&run_time_ns, &key);
  if (total) {
    __sync_fetch_and_add(total, ns);
    return;
  }
  // First slice of this {tgid, node}: insert it with its value. Another CPU
  // may have inserted the key meanwhile (EEXIST): add to that one.
  if (bpf_map_update_elem(&run_time_ns, &key, &ns, BPF_NOEXIST) == 0) return;
  total = bpf_map_lookup_elem(&run_time_ns, &key);
  if (total) __sync_fetch_and_add(total, ns);
}

static __always_inline void on_switch(__u32 next_tgid) {
  __u32 zero = 0;
  struct running_slice* slice = bpf_map_lookup_elem(&running, &zero);
  if (!slice) return;
  __u64 now = bpf_ktime_get_ns();
  if (slice->tgid != 0) credit(slice->tgid, now - slice->since_ns);
  if (next_tgid != 0 && bpf_map_lookup_elem(&tracked_tgids, &next_tgid)) {
    slice->tgid = next_tgid;
    slice->since_ns = now;
  } else {
    slice->tgid = 0;
  }
}

// TP_PROTO(bool preempt, struct task_struct *prev, struct task_struct *next,
//          unsigned int prev_state) since 5.18; the first three are older.
SEC("tp_btf/sched_switch")
int BPF_PROG(switch_tp_btf, bool preempt, struct task_struct* prev, struct task_struct* next) {
  on_switch(next->tgid);
  return 0;
}

SEC("raw_tp/sched_switch")
int switch_raw_tp(struct bpf_raw_tracepoint_args* ctx) {
  struct task_struct* next = (struct task_struct*)ctx->args[2];
  on_switch(BPF_CORE_READ(next, tgid));
  return 0;
}
