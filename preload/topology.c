/* Nodes, kernel memory tiers and distances, read once with raw syscalls into
 * static tables: for each CPU node, the nearest node of the fastest tier
 * (`fast`), the nearest node of a slower tier (`slow`) and the nearest node
 * of the policy's own set (where the kernel puts a bind/preferred-many page
 * first, for the statistics). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "tp_internal.h"

#define NODE_DIR "/sys/devices/system/node"
#define TIER_DIR "/sys/devices/virtual/memory_tiering"

static int read_mask(const char* root, const char* path, tp_nodemask* out) {
  char buf[4096];
  ssize_t n = tp_read_file(root, path, buf, sizeof buf);
  if (n <= 0) return -1;
  return tp_parse_nodelist(buf, buf + n, out);
}

static int parse_uint(const char* s, int* out) {
  int v = 0;
  if (*s < '0' || *s > '9') return -1;
  for (; *s >= '0' && *s <= '9'; ++s) {
    v = v * 10 + (*s - '0');
    if (v > 1000000) return -1;
  }
  if (*s != '\0') return -1;
  *out = v;
  return 0;
}

/* Kernel tiers ranked by their id (a lower id is a lower abstract distance,
 * i.e. faster). Directory listed with getdents64: opendir would malloc. */
static int read_kernel_tiers(const char* root, struct tp_topology* topo) {
  static int ids[TP_MAX_TIERS];
  static tp_nodemask masks[TP_MAX_TIERS];
  char dir[TP_PATH_MAX * 2] = "";
  tp_str_append(dir, sizeof dir, root);
  tp_str_append(dir, sizeof dir, TIER_DIR);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  int count = 0;
  char buf[4096] __attribute__((aligned(8)));
  ssize_t got;
  while ((got = getdents64(fd, buf, sizeof buf)) > 0) {
    for (ssize_t off = 0; off < got;) {
      struct dirent64* e = (struct dirent64*)(void*)(buf + off);
      off += e->d_reclen;
      int id;
      if (strncmp(e->d_name, "memory_tier", 11) != 0 || parse_uint(e->d_name + 11, &id) != 0)
        continue;
      if (count == TP_MAX_TIERS) break;
      char path[TP_PATH_MAX] = TIER_DIR "/";
      tp_str_append(path, sizeof path, e->d_name);
      tp_str_append(path, sizeof path, "/nodelist");
      if (read_mask(root, path, &masks[count]) != 0) continue;
      ids[count++] = id;
    }
  }
  close(fd);
  if (count == 0) return -1;
  for (int rank = 0; rank < count; ++rank) { /* selection sort: a handful of tiers */
    int best = rank;
    for (int i = rank + 1; i < count; ++i)
      if (ids[i] < ids[best]) best = i;
    int id = ids[best];
    tp_nodemask m = masks[best];
    ids[best] = ids[rank];
    masks[best] = masks[rank];
    ids[rank] = id;
    masks[rank] = m;
    for (int n = 0; n < topo->nr_nodes; ++n)
      if (tp_mask_test(&m, n) && topo->rank[n] < 0) topo->rank[n] = (short)rank;
  }
  return 0;
}

/* Without memory_tiering/ (old kernels): CPU-less memory nodes are the slow tier. */
static void guess_tiers(const char* root, struct tp_topology* topo) {
  tp_nodemask cpu;
  if (read_mask(root, NODE_DIR "/has_cpu", &cpu) != 0) cpu = topo->memory;
  for (int n = 0; n < topo->nr_nodes; ++n)
    if (tp_mask_test(&topo->memory, n)) topo->rank[n] = tp_mask_test(&cpu, n) ? 0 : 1;
}

/* Distances from `from` to every online node (SLIT row order = online order). */
static void read_distances(const char* root, int from, const tp_nodemask* online,
                           unsigned short* dist) {
  for (int n = 0; n < TP_MAX_NODES; ++n) dist[n] = (unsigned short)(n == from ? 10 : 20);
  char path[TP_PATH_MAX] = NODE_DIR "/node";
  tp_str_append_u64(path, sizeof path, (uint64_t)from);
  tp_str_append(path, sizeof path, "/distance");
  char buf[8192];
  if (tp_read_file(root, path, buf, sizeof buf) <= 0) return;
  const char* s = buf;
  for (int n = 0; n < TP_MAX_NODES; ++n) {
    if (!tp_mask_test(online, n)) continue;
    while (*s == ' ' || *s == '\n') ++s;
    if (*s < '0' || *s > '9') return;
    unsigned v = 0;
    for (; *s >= '0' && *s <= '9'; ++s) v = v * 10 + (unsigned)(*s - '0');
    dist[n] = (unsigned short)(v > 65535 ? 65535 : v);
  }
}

/* Nearest node of `candidates` from `from` (ties: faster tier, then lower id). */
static short nearest(const struct tp_topology* topo, const unsigned short* dist,
                     const tp_nodemask* candidates) {
  int best = -1;
  for (int n = 0; n < topo->nr_nodes; ++n) {
    if (!tp_mask_test(candidates, n)) continue;
    if (best < 0 || dist[n] < dist[best] ||
        (dist[n] == dist[best] && topo->rank[n] < topo->rank[best]))
      best = n;
  }
  return (short)best;
}

int tp_read_topology(const char* root, const tp_nodemask* set, struct tp_topology* topo) {
  static unsigned short dist[TP_MAX_NODES];
  tp_nodemask possible, online;
  memset(topo, 0, sizeof *topo);
  if (read_mask(root, NODE_DIR "/possible", &possible) != 0) return -1;
  if (read_mask(root, NODE_DIR "/online", &online) != 0) online = possible;
  for (int n = 0; n < TP_MAX_NODES; ++n) {
    topo->rank[n] = -1;
    topo->fast_for[n] = topo->slow_for[n] = topo->set_for[n] = -1;
    if (tp_mask_test(&possible, n)) topo->nr_nodes = n + 1;
  }
  if (read_mask(root, NODE_DIR "/has_memory", &topo->memory) != 0) topo->memory = online;
  topo->tiers_from_kernel = read_kernel_tiers(root, topo) == 0;
  if (!topo->tiers_from_kernel) guess_tiers(root, topo);
  tp_nodemask fastest, slower;
  memset(&fastest, 0, sizeof fastest);
  memset(&slower, 0, sizeof slower);
  for (int n = 0; n < topo->nr_nodes; ++n) {
    if (!tp_mask_test(&topo->memory, n)) continue;
    if (topo->rank[n] < 0) topo->rank[n] = 0; /* memory outside every tier: default tier */
  }
  int top = 1 << 30;
  for (int n = 0; n < topo->nr_nodes; ++n)
    if (tp_mask_test(&topo->memory, n) && topo->rank[n] < top) top = topo->rank[n];
  for (int n = 0; n < topo->nr_nodes; ++n) {
    if (!tp_mask_test(&topo->memory, n)) continue;
    tp_mask_set(topo->rank[n] == top ? &fastest : &slower, n);
  }
  topo->has_slow_tier = tp_mask_count(&slower) > 0;
  for (int c = 0; c < topo->nr_nodes; ++c) {
    if (!tp_mask_test(&online, c)) continue;
    read_distances(root, c, &online, dist);
    topo->fast_for[c] = nearest(topo, dist, &fastest);
    topo->slow_for[c] = topo->has_slow_tier ? nearest(topo, dist, &slower) : topo->fast_for[c];
    if (set != NULL) topo->set_for[c] = nearest(topo, dist, set);
  }
  return 0;
}
