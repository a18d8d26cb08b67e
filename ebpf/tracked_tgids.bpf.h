/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tracked_tgids.bpf.h: the processes a heat program watches, one definition
 * for page_fault.bpf.c and sched_node.bpf.c. The loader writes one entry per
 * tracked process (libtier/src/heat/bpf/tracked_processes.cpp) and removes
 * it when the process exits; the programs only look up, first thing, so an
 * untracked process costs one hash lookup. Each object that includes this
 * gets a map of its own: programs of different objects do not share it.
 *
 * BPF side only: include after vmlinux.h and <bpf/bpf_helpers.h>. */
#ifndef TIER_TRACKED_TGIDS_BPF_H
#define TIER_TRACKED_TGIDS_BPF_H

/* Room for every process of a large machine (tierd watches all it places
 * through one program); entries are allocated as they are added
 * (BPF_F_NO_PREALLOC), so the room costs nothing until used. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 65536);
  __type(key, __u32); /* tgid */
  __type(value, __u8);
} tracked_tgids SEC(".maps");

static __always_inline int tgid_tracked(__u32 tgid) {
  return bpf_map_lookup_elem(&tracked_tgids, &tgid) != 0;
}

#endif /* TIER_TRACKED_TGIDS_BPF_H */
