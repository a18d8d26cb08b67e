/* The layout of libtierpreload's statistics mapping, shared with
 * `tierctl stats --pid` (which finds "/memfd:tier-preload" in
 * /proc/PID/maps and reads it through /proc/PID/mem: cli/preload_stats.cpp
 * mirrors the offsets (header 104 bytes, 32 per node, little-endian u64s).
 * Change TP_STATS_VERSION with any change here. */
#ifndef TIER_PRELOAD_STATS_LAYOUT_H
#define TIER_PRELOAD_STATS_LAYOUT_H

#include <stdint.h>

#include <stdatomic.h>
#define TP_ATOMIC_U64 atomic_ullong

#define TP_STATS_MAGIC "TIERPRE1"
#define TP_STATS_VERSION 1
#define TP_STATS_MEMFD_NAME "tier-preload"

struct tp_stats_node {
  TP_ATOMIC_U64 bytes;           /* placed bytes now on this node */
  TP_ATOMIC_U64 count;           /* placed allocations now with bytes here */
  TP_ATOMIC_U64 allocations;     /* since start */
  TP_ATOMIC_U64 allocated_bytes; /* since start */
};

struct tp_stats_shared {
  char magic[8];
  uint32_t version;
  uint32_t nr_nodes;
  int32_t pid;
  uint32_t reserved;
  char policy[64];
  TP_ATOMIC_U64 fallbacks;      /* binds that failed (advisory: kept unbound) */
  TP_ATOMIC_U64 unplaced_bytes; /* mapped by us but left to the kernel */
  struct tp_stats_node node[];  /* nr_nodes slots */
};

#endif
