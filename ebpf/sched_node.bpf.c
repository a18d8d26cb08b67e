// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// sched_node: on-CPU time of tracked processes per NUMA node.
//
// On every context switch the run time a tracked thread gained since it was
// last seen is credited to its process, under the node of the CPU it is
// leaving. The run time is the scheduler's own count (se.sum_exec_runtime,
// what /proc/PID/schedstat shows), not a timestamp pair taken here: a switch
// this program misses (it has been seen under heavy preemption) then moves
// time to the next switch-out instead of losing it. Each thread's last seen
// count sits in thread_runtime; the loader seeds it from schedstat for the
// threads that exist at start, the program for threads born later (at their
// first switch-in). Time is credited when a thread switches out: a thread
// still running when the map is read has its current slice missing.
//
// Programs, the loader (libtier/src/heat/bpf/sched_node.cpp) autoloads one:
//   1. tp_btf/sched_switch   typed task_struct pointers
//   2. raw_tp/sched_switch   same arguments read with CO-RE from args[]
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tier_events.h"
#include "tracked_tgids.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TIER_MAX_CPUS 4096

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

// tid -> the thread's se.sum_exec_runtime when last credited (or seeded).
// LRU: threads of exited processes age out without an exit hook.
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32);  // tid
  __type(value, __u64);
} thread_runtime SEC(".maps");

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

static __always_inline int tracked(__u32 tgid) {
  return tgid != 0 && tgid_tracked(tgid);
}

// prev's count is current here: the scheduler updates it (update_curr) while
// putting prev away, before the tracepoint fires.
static __always_inline void on_switch(__u32 prev_tgid, __u32 prev_tid, __u64 prev_runtime,
                                      __u32 next_tgid, __u32 next_tid, __u64 next_runtime) {
  if (tracked(prev_tgid)) {
    __u64* last = bpf_map_lookup_elem(&thread_runtime, &prev_tid);
    if (last) {
      if (prev_runtime > *last) credit(prev_tgid, prev_runtime - *last);
      *last = prev_runtime;
    } else {
      // Never seen switching in (nor seeded): its time so far is unknown.
      bpf_map_update_elem(&thread_runtime, &prev_tid, &prev_runtime, BPF_ANY);
    }
  }
  // A thread already known keeps its count: if its last switch-out was
  // missed, the time since then is credited at its next one.
  if (tracked(next_tgid)) {
    bpf_map_update_elem(&thread_runtime, &next_tid, &next_runtime, BPF_NOEXIST);
  }
}

// TP_PROTO(bool preempt, struct task_struct *prev, struct task_struct *next,
//          unsigned int prev_state) since 5.18; the first three are older.
SEC("tp_btf/sched_switch")
int BPF_PROG(switch_tp_btf, bool preempt, struct task_struct* prev, struct task_struct* next) {
  on_switch(prev->tgid, prev->pid, prev->se.sum_exec_runtime, next->tgid, next->pid,
            next->se.sum_exec_runtime);
  return 0;
}

SEC("raw_tp/sched_switch")
int switch_raw_tp(struct bpf_raw_tracepoint_args* ctx) {
  struct task_struct* prev = (struct task_struct*)ctx->args[1];
  struct task_struct* next = (struct task_struct*)ctx->args[2];
  on_switch(BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid),
            BPF_CORE_READ(prev, se.sum_exec_runtime), BPF_CORE_READ(next, tgid),
            BPF_CORE_READ(next, pid), BPF_CORE_READ(next, se.sum_exec_runtime));
  return 0;
}
