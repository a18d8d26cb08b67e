// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// feature_probe: the smallest programs that prove an attach mechanism works.
//
// `tierctl doctor` loads and attaches each program on its own (the loader,
// libtier/src/doctor/feature_probe.cpp, turns autoload off for the others, so
// one missing mechanism cannot fail the load of the rest), triggers the
// event, and reads the hit counter back. A non-zero count proves the whole
// path works, not just that the load passed.
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

// Hit counters, one per program; global data lives in the .bss array map,
// which the skeleton memory-maps so user space reads it without syscalls.
__u64 tracepoint_hits = 0;
__u64 tp_btf_hits = 0;
__u64 kprobe_hits = 0;

// Classic tracepoint: needs tracefs for the event id at attach time. The
// context is left untyped on purpose: this kernel's BTF lacks
// struct trace_event_raw_x86_exceptions and the probe reads no field.
SEC("tracepoint/exceptions/page_fault_user")
int probe_tracepoint(void* ctx) {
  __sync_fetch_and_add(&tracepoint_hits, 1);
  return 0;
}

// BTF-typed raw tracepoint: attaches through bpf_link_create, no tracefs.
SEC("tp_btf/page_fault_user")
int BPF_PROG(probe_tp_btf, unsigned long address, struct pt_regs* regs, unsigned long error_code) {
  __sync_fetch_and_add(&tp_btf_hits, 1);
  return 0;
}

// The syscall entry point is never inlined, so the symbol exists on every
// x86-64 kernel; only CONFIG_KPROBES decides whether this attaches.
SEC("kprobe/__x64_sys_getpid")
int probe_kprobe(struct pt_regs* ctx) {
  __sync_fetch_and_add(&kprobe_hits, 1);
  return 0;
}
