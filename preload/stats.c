/* Per-node counters of placed bytes. They live in a small shared memfd
 * mapping ("/memfd:tier-preload" in /proc/PID/maps) so that `tierctl stats
 * --pid` can read them from outside while the program runs; before the
 * constructor (and if memfd_create fails) they live in static storage.
 * Counting happens through tp_split(), the same for + and -, so frees bring
 * every counter back exactly. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tp_internal.h"
#include "tp_stats_layout.h"

/* cli/preload_stats.cpp reads these offsets from outside the process. */
_Static_assert(offsetof(struct tp_stats_shared, policy) == 24, "stats layout");
_Static_assert(offsetof(struct tp_stats_shared, fallbacks) == 88, "stats layout");
_Static_assert(offsetof(struct tp_stats_shared, node) == 104, "stats layout");
_Static_assert(sizeof(struct tp_stats_node) == 32, "stats layout");

#define SHARED_SIZE(n) (sizeof(struct tp_stats_shared) + (size_t)(n) * sizeof(struct tp_stats_node))

static _Alignas(4096) unsigned char static_area[SHARED_SIZE(TP_MAX_NODES)];
static struct tp_stats_shared* shared = (struct tp_stats_shared*)(void*)static_area;
static size_t shared_size = SHARED_SIZE(TP_MAX_NODES);
static int shared_is_memfd;

static void fill_identity(struct tp_stats_shared* s, const struct tp_config* cfg, int nr_nodes) {
  memcpy(s->magic, TP_STATS_MAGIC, sizeof s->magic);
  s->version = TP_STATS_VERSION;
  s->nr_nodes = (uint32_t)nr_nodes;
  s->pid = (int32_t)getpid();
  if (cfg != NULL) {
    memset(s->policy, 0, sizeof s->policy);
    tp_str_append(s->policy, sizeof s->policy, cfg->policy_text);
  }
}

/* A new memfd holding `s`'s current contents, mapped over `at` (or anywhere). */
static void* map_copy(const void* contents, size_t size, void* at) {
  int fd = memfd_create(TP_STATS_MEMFD_NAME, MFD_CLOEXEC);
  if (fd < 0) return NULL;
  void* m = MAP_FAILED;
  if (write(fd, contents, size) == (ssize_t)size) {
    m = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | (at != NULL ? MAP_FIXED : 0), fd, 0);
  }
  close(fd);
  return m == MAP_FAILED ? NULL : m;
}

void tp_stats_identify(const struct tp_config* cfg, int nr_nodes) {
  fill_identity(shared, cfg, nr_nodes < 1 ? 1 : nr_nodes);
}

void tp_stats_setup(const struct tp_config* cfg, int nr_nodes) {
  if (nr_nodes < 1) nr_nodes = 1;
  fill_identity(shared, cfg, nr_nodes);
  if (shared_is_memfd) return;
  const size_t size = (SHARED_SIZE(nr_nodes) + 4095) & ~(size_t)4095;
  void* m = map_copy(shared, size, NULL);
  if (m == NULL) return; /* keep counting in static storage */
  shared = m;
  shared_size = size;
  shared_is_memfd = 1;
}

/* The child must not count into its parent's mapping: copy it into its own
 * at the same address (nothing else runs in the child yet). */
void tp_stats_after_fork_child(void) {
  shared->pid = (int32_t)getpid();
  if (!shared_is_memfd) return;
  if (map_copy(shared, shared_size, shared) == NULL) {
    memcpy(static_area, shared, shared_size);
    munmap(shared, shared_size);
    shared = (struct tp_stats_shared*)(void*)static_area;
    shared_is_memfd = 0;
  }
}

void tp_stats_fallback(void) {
  atomic_fetch_add_explicit(&shared->fallbacks, 1, memory_order_relaxed);
}

static void add_node(int node, size_t bytes, void* arg) {
  const int sign = *(const int*)arg;
  if (node < 0 || (uint32_t)node >= shared->nr_nodes) return;
  struct tp_stats_node* slot = &shared->node[node];
  const unsigned long long delta = sign > 0 ? bytes : (unsigned long long)0 - bytes;
  atomic_fetch_add_explicit(&slot->bytes, delta, memory_order_relaxed);
  atomic_fetch_add_explicit(&slot->count, sign > 0 ? 1ULL : ~0ULL, memory_order_relaxed);
  if (sign > 0) {
    atomic_fetch_add_explicit(&slot->allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&slot->allocated_bytes, bytes, memory_order_relaxed);
  }
}

void tp_stats_add(const struct tp_decision* d, size_t len, int sign) {
  const unsigned long long delta = sign > 0 ? len : (unsigned long long)0 - len;
  if (d->fast >= 0)
    atomic_fetch_add_explicit(&tp_ratio_bytes[d->fast], delta, memory_order_relaxed);
  if (d->kind == TP_KIND_NONE) {
    atomic_fetch_add_explicit(&shared->unplaced_bytes, delta, memory_order_relaxed);
    return;
  }
  tp_split(len, d, add_node, &sign);
}

uint64_t tp_stats_node_bytes(int node) {
  if (node < 0 || (uint32_t)node >= shared->nr_nodes) return 0;
  return atomic_load_explicit(&shared->node[node].bytes, memory_order_relaxed);
}

static void append_field(char* buf, size_t cap, const char* name, uint64_t v, int comma) {
  tp_str_append(buf, cap, "\"");
  tp_str_append(buf, cap, name);
  tp_str_append(buf, cap, "\":");
  tp_str_append_u64(buf, cap, v);
  if (comma) tp_str_append(buf, cap, ",");
}

/* The JSON document (no allocation: one static buffer). */
static const char* render_json(void) {
  static char buf[65536];
  buf[0] = '\0';
  tp_str_append(buf, sizeof buf, "{");
  append_field(buf, sizeof buf, "pid", (uint64_t)getpid(), 1);
  tp_str_append(buf, sizeof buf, "\"policy\":\"");
  tp_str_append(buf, sizeof buf, shared->policy); /* validated: no quotes */
  tp_str_append(buf, sizeof buf, "\",");
  append_field(buf, sizeof buf, "threshold_min", tp_cfg.min_size, 1);
  append_field(buf, sizeof buf, "fallbacks", atomic_load(&shared->fallbacks), 1);
  append_field(buf, sizeof buf, "unplaced_bytes", atomic_load(&shared->unplaced_bytes), 1);
  tp_str_append(buf, sizeof buf, "\"nodes\":{");
  int first = 1;
  for (uint32_t n = 0; n < shared->nr_nodes; ++n) {
    struct tp_stats_node* s = &shared->node[n];
    if (atomic_load(&s->allocations) == 0) continue;
    tp_str_append(buf, sizeof buf, first ? "\"" : ",\"");
    first = 0;
    tp_str_append_u64(buf, sizeof buf, n);
    tp_str_append(buf, sizeof buf, "\":{");
    append_field(buf, sizeof buf, "bytes", atomic_load(&s->bytes), 1);
    append_field(buf, sizeof buf, "count", atomic_load(&s->count), 1);
    append_field(buf, sizeof buf, "allocations", atomic_load(&s->allocations), 1);
    append_field(buf, sizeof buf, "allocated_bytes", atomic_load(&s->allocated_bytes), 0);
    tp_str_append(buf, sizeof buf, "}");
  }
  tp_str_append(buf, sizeof buf, "}}\n");
  return buf;
}

static void write_all(int fd, const char* s) {
  size_t len = strlen(s);
  while (len > 0) {
    ssize_t n = write(fd, s, len);
    if (n <= 0) return;
    s += n;
    len -= (size_t)n;
  }
}

/* FILE, with "%p" replaced by the pid (several processes may share the env). */
void tp_stats_write_file(const char* path) {
  char full[TP_PATH_MAX + 32] = "";
  for (const char* s = path; *s != '\0'; ++s) {
    if (s[0] == '%' && s[1] == 'p') {
      tp_str_append_u64(full, sizeof full, (uint64_t)getpid());
      ++s;
    } else {
      char one[2] = {*s, '\0'};
      tp_str_append(full, sizeof full, one);
    }
  }
  int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  write_all(fd, render_json());
  close(fd);
}

void tp_stats_log_summary(int fd) {
  write_all(fd, "tierpreload: exit: ");
  write_all(fd, render_json());
}
