/* Which node(s) a placed mapping goes to, and binding it before first touch.
 *
 * weighted:N=W,... is tier's own striping, not the kernel's
 * MPOL_WEIGHTED_INTERLEAVE: the kernel's weights are one global sysfs table
 * (changing them would re-weight every other process), ours are per
 * allocation and exact: each node gets floor(pages * W / sum W) pages (the
 * remainder to the first nodes), laid out in at most STRIPE_ROUNDS rounds of
 * contiguous runs, each run bound to its node with its own mbind. */
#define _GNU_SOURCE
#include <errno.h>
#include <numaif.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tp_internal.h"

#ifndef MPOL_LOCAL
#define MPOL_LOCAL 4
#endif
#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5
#endif

#define PAGE 4096UL
#define STRIPE_UNIT_PAGES 512UL /* 2 MiB runs: huge-page friendly */
#define STRIPE_ROUNDS 16UL      /* each run is a VMA: bound their number */

static int current_node(void) {
  unsigned cpu = 0, node = 0;
  if (getcpu(&cpu, &node) != 0 || node >= (unsigned)tp_topo.nr_nodes ||
      tp_topo.fast_for[node] < 0) {
    int first = tp_mask_first(&tp_topo.memory);
    return first < 0 ? 0 : first;
  }
  return (int)node;
}

/* ratio:F:S — the side whose choice leaves fast:slow closest to F:S. */
static int ratio_pick_fast(size_t len) {
  __extension__ unsigned __int128 f =
      atomic_load_explicit(&tp_ratio_bytes[1], memory_order_relaxed);
  __extension__ unsigned __int128 s =
      atomic_load_explicit(&tp_ratio_bytes[0], memory_order_relaxed);
  __extension__ unsigned __int128 F = tp_cfg.ratio_fast, S = tp_cfg.ratio_slow;
  /* error after choosing fast: |(f+len)*S - s*F|; after slow: |f*S - (s+len)*F| */
  __extension__ unsigned __int128 a = (f + len) * S, b = s * F;
  __extension__ unsigned __int128 err_fast = a > b ? a - b : b - a;
  a = f * S;
  b = (s + len) * F;
  __extension__ unsigned __int128 err_slow = a > b ? a - b : b - a;
  return err_fast <= err_slow;
}

struct tp_decision tp_decide(size_t len) {
  struct tp_decision d = {TP_KIND_NONE, -1, -1, 0};
  int mode = tp_cfg.mode;
  if (mode == TP_MODE_AUTO) mode = atomic_load_explicit(&tp_auto_mode, memory_order_relaxed);
  int here = current_node();
  switch (mode) {
    case TP_MODE_LOCAL:
      d.kind = TP_KIND_LOCAL;
      d.node = here;
      break;
    case TP_MODE_FAST:
      d.kind = TP_KIND_NODE;
      d.node = tp_topo.fast_for[here];
      break;
    case TP_MODE_SLOW:
      d.kind = TP_KIND_NODE;
      d.node = tp_topo.slow_for[here];
      break;
    case TP_MODE_RATIO:
      d.kind = TP_KIND_NODE;
      d.fast = ratio_pick_fast(len);
      d.node = d.fast ? tp_topo.fast_for[here] : tp_topo.slow_for[here];
      break;
    case TP_MODE_NODES:
    case TP_MODE_PREFERRED_MANY:
    case TP_MODE_INTERLEAVE:
      d.kind = TP_KIND_SET;
      d.node = tp_topo.set_for[here];
      break;
    case TP_MODE_WEIGHTED:
      d.kind = TP_KIND_STRIPE;
      break;
    default:
      break;
  }
  return d;
}

static long mbind_mask(void* addr, size_t len, int mode, const tp_nodemask* mask) {
  /* maxnode counts one past the last bit the kernel reads (its get_nodes quirk). */
  unsigned long maxnode = mask == NULL ? 0 : (unsigned long)tp_topo.nr_nodes + 1;
  return syscall(SYS_mbind, addr, len, mode, mask == NULL ? NULL : mask->w, maxnode, 0);
}

static long bind_node(void* addr, size_t len, int node) {
  tp_nodemask m;
  memset(&m, 0, sizeof m);
  tp_mask_set(&m, node);
  return mbind_mask(addr, len, tp_cfg.strict == TP_STRICT_STRICT ? MPOL_BIND : MPOL_PREFERRED, &m);
}

/* Walks the stripe layout of a `len` mapping: cb(node, offset, bytes). */
static int stripe_walk(size_t len, int (*cb)(int node, size_t off, size_t bytes, void* arg),
                       void* arg) {
  static const unsigned long bits = 8 * sizeof(unsigned long);
  size_t pages = len / PAGE, wsum = 0;
  int nodes[TP_MAX_STRIPE];
  int k = 0;
  for (int n = 0; n < TP_MAX_NODES && k < TP_MAX_STRIPE; ++n) {
    if ((tp_cfg.nodes.w[n / bits] >> (n % bits)) & 1UL) {
      nodes[k++] = n;
      wsum += tp_cfg.weights[n];
    }
  }
  if (k == 0 || wsum == 0) return 0;
  size_t remaining[TP_MAX_STRIPE];
  size_t given = 0;
  for (int i = 0; i < k; ++i) {
    remaining[i] = pages * tp_cfg.weights[nodes[i]] / wsum;
    given += remaining[i];
  }
  for (int i = 0; given < pages; i = (i + 1) % k, ++given) ++remaining[i];
  size_t unit = STRIPE_UNIT_PAGES;
  if (pages > unit * wsum * STRIPE_ROUNDS)
    unit = (pages + wsum * STRIPE_ROUNDS - 1) / (wsum * STRIPE_ROUNDS);
  size_t off = 0;
  while (off < pages) {
    for (int i = 0; i < k; ++i) {
      size_t take = unit * tp_cfg.weights[nodes[i]];
      if (take > remaining[i]) take = remaining[i];
      if (take == 0) continue;
      if (cb(nodes[i], off * PAGE, take * PAGE, arg) != 0) return -1;
      remaining[i] -= take;
      off += take;
    }
  }
  return 0;
}

static int bind_run(int node, size_t off, size_t bytes, void* base) {
  return bind_node((char*)base + off, bytes, node) == 0 ? 0 : -1;
}

int tp_apply(void* addr, size_t len, const struct tp_decision* d) {
  if (tp_cfg.strict == TP_STRICT_NONE) return 0; /* route and count only */
  const int strict = tp_cfg.strict == TP_STRICT_STRICT;
  switch (d->kind) {
    case TP_KIND_LOCAL:
      return mbind_mask(addr, len, MPOL_LOCAL, NULL) == 0 ? 0 : -1;
    case TP_KIND_NODE:
      return d->node < 0 ? -1 : (bind_node(addr, len, d->node) == 0 ? 0 : -1);
    case TP_KIND_SET: {
      int mode = MPOL_INTERLEAVE;
      if (tp_cfg.mode == TP_MODE_NODES) mode = strict ? MPOL_BIND : MPOL_PREFERRED_MANY;
      if (tp_cfg.mode == TP_MODE_PREFERRED_MANY) mode = strict ? MPOL_BIND : MPOL_PREFERRED_MANY;
      return mbind_mask(addr, len, mode, &tp_cfg.nodes) == 0 ? 0 : -1;
    }
    case TP_KIND_STRIPE:
      return stripe_walk(len, bind_run, addr);
    default:
      return 0;
  }
}

/* Striped runs summed per node: one callback per node, so an allocation
 * counts once on each node it spans. */
struct split_ctx {
  int nodes[TP_MAX_STRIPE];
  size_t bytes[TP_MAX_STRIPE];
  int k;
};

static int split_run(int node, size_t off, size_t bytes, void* arg) {
  (void)off;
  struct split_ctx* ctx = arg;
  int i = 0;
  while (i < ctx->k && ctx->nodes[i] != node) ++i;
  if (i == ctx->k) {
    ctx->nodes[ctx->k++] = node;
    ctx->bytes[i] = 0;
  }
  ctx->bytes[i] += bytes;
  return 0;
}

void tp_split(size_t len, const struct tp_decision* d,
              void (*cb)(int node, size_t bytes, void* arg), void* arg) {
  switch (d->kind) {
    case TP_KIND_LOCAL:
    case TP_KIND_NODE:
      if (d->node >= 0) cb(d->node, len, arg);
      break;
    case TP_KIND_SET:
      if (tp_cfg.mode == TP_MODE_INTERLEAVE) {
        /* the kernel interleaves page by page: an even split (remainder first) */
        size_t pages = len / PAGE;
        int k = tp_mask_count(&tp_cfg.nodes), i = 0;
        for (int n = 0; n < tp_topo.nr_nodes; ++n) {
          if (!tp_mask_test(&tp_cfg.nodes, n)) continue;
          size_t share = pages / (size_t)k + ((size_t)i < pages % (size_t)k ? 1 : 0);
          if (share != 0) cb(n, share * PAGE, arg);
          ++i;
        }
      } else if (d->node >= 0) {
        cb(d->node, len, arg); /* bind/preferred-many fill the nearest node of the set first */
      }
      break;
    case TP_KIND_STRIPE: {
      struct split_ctx ctx;
      ctx.k = 0;
      stripe_walk(len, split_run, &ctx);
      for (int i = 0; i < ctx.k; ++i) cb(ctx.nodes[i], ctx.bytes[i], arg);
      break;
    }
    default:
      break;
  }
}
