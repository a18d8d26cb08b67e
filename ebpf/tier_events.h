/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tier_events.h: the records and counter layouts the heat BPF programs share
 * with their user-space loaders (libtier/src/heat/bpf/).
 *
 * Plain C with fixed-width kernel types so one definition serves both sides:
 * the BPF programs include it after vmlinux.h, C++ after <linux/types.h>.
 * Changing a layout means rebuilding both, which the skeletons guarantee
 * (they embed the objects the same build compiled). */
#ifndef TIER_EVENTS_H
#define TIER_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* One user page fault of a tracked process (page_fault.bpf.c ringbuf record). */
struct tier_fault_event {
  __u64 addr;       /* faulting virtual address */
  __u64 time_ns;    /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
  __u32 tgid;       /* process (thread group) id */
  __u32 tid;        /* thread id */
  __u32 cpu;        /* CPU the fault was taken on */
  __u32 error_code; /* x86 page-fault error code; bit 0 (PF_PROT) = page was present */
  __u32 repeat;     /* 1: PF_PROT set, or this page faulted before (see below) */
  __u32 pad;
};

/* x86 error_code bit 0: the fault hit a present page (protection fault):
 * copy-on-write or write-protect. NUMA hint faults do NOT set it: x86 makes
 * PROT_NONE PTEs not present in hardware (_PAGE_PROTNONE), so a hint fault
 * reports "not present" like a first touch (measured on 6.18). Hence
 * `repeat` also marks a not-present fault on a page this process already
 * faulted on while tracked (page_fault.bpf.c keeps a cache of them): a hint
 * fault, or a refault after reclaim/munmap+mmap at the same address. */
#define TIER_PF_PROT 0x1u

/* Slots of page_fault.bpf.c's per-CPU counter array. For every tracked
 * fault exactly one of sampled_out/delivered/dropped is incremented after
 * seen, so per CPU: seen == sampled_out + delivered + dropped. */
enum tier_fault_counter {
  TIER_FAULT_SEEN = 0,        /* faults of tracked processes */
  TIER_FAULT_SAMPLED_OUT = 1, /* skipped by 1-in-N sampling */
  TIER_FAULT_DELIVERED = 2,   /* written to the ringbuf */
  TIER_FAULT_DROPPED = 3,     /* ringbuf full: bpf_ringbuf_reserve failed */
  TIER_FAULT_NR_COUNTERS = 4,
};

/* Value of the one-entry per-CPU counter array (user space sums the CPUs). */
struct tier_fault_counters {
  __u64 count[TIER_FAULT_NR_COUNTERS];
};

/* sched_node.bpf.c: on-CPU time of a tracked process on one NUMA node. */
struct tier_node_key {
  __u32 tgid;
  __s32 node; /* node of the CPU the task ran on, -1 when the CPU is unmapped */
};

/* kernel_migrations.bpf.c: migrate_reason values are stable across kernels
 * (MR_COMPACTION = 0 ... MR_DEMOTION = 8, MR_DAMON = 9 since 6.11); the
 * per-reason array is sized for growth, reasons beyond it land in the last slot. */
#define TIER_MIGRATE_REASONS 16

enum tier_migration_counter {
  TIER_MIGRATE_CALLS = 0,         /* mm_migrate_pages events */
  TIER_MIGRATE_SUCCEEDED = 1,     /* base pages (folios' pages) migrated */
  TIER_MIGRATE_FAILED = 2,        /* pages that failed to migrate */
  TIER_MIGRATE_THP_SUCCEEDED = 3, /* huge pages migrated */
  TIER_MIGRATE_THP_FAILED = 4,    /* huge pages that failed */
  TIER_MIGRATE_NR_COUNTERS = 5,
};

/* Value of the one-entry per-CPU counter array (user space sums the CPUs). */
struct tier_migration_counters {
  __u64 count[TIER_MIGRATE_NR_COUNTERS];
  __u64 succeeded_by_reason[TIER_MIGRATE_REASONS];
};

#endif /* TIER_EVENTS_H */
