/* libtierpreload internals shared by its files (C, libc only).
 *
 * Contract: nothing reachable from an allocation entry point allocates through
 * malloc, takes a lock, or writes to a stream. State is static (bss) and is
 * filled once by tp_init(); counters are relaxed atomics. */
#ifndef TIER_PRELOAD_INTERNAL_H
#define TIER_PRELOAD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#ifndef __cplusplus
#include <stdatomic.h>
#else
extern "C" { /* the unit tests call the parsers and tp_* entry points */
#endif

/* The kernel's largest MAX_NUMNODES (NODES_SHIFT 10): masks are this wide and
 * the width passed to mbind comes from /sys/devices/system/node/possible. */
#define TP_MAX_NODES 1024
#define TP_MASK_WORDS (TP_MAX_NODES / (8 * sizeof(unsigned long)))
#define TP_MAX_TIERS 64
#define TP_MAX_STRIPE 64 /* nodes in one weighted: policy (stack arrays in malloc) */
#define TP_PATH_MAX 256

typedef struct {
  unsigned long w[TP_MASK_WORDS];
} tp_nodemask;

static inline void tp_mask_set(tp_nodemask* m, int n) {
  m->w[n / (8 * sizeof(unsigned long))] |= 1UL << (n % (8 * sizeof(unsigned long)));
}
static inline int tp_mask_test(const tp_nodemask* m, int n) {
  return (int)((m->w[n / (8 * sizeof(unsigned long))] >> (n % (8 * sizeof(unsigned long)))) & 1UL);
}
int tp_mask_count(const tp_nodemask* m);
int tp_mask_first(const tp_nodemask* m); /* -1 when empty */

enum tp_mode {
  TP_MODE_OFF, /* plain glibc: nothing is placed */
  TP_MODE_LOCAL,
  TP_MODE_FAST,
  TP_MODE_SLOW,
  TP_MODE_NODES,
  TP_MODE_INTERLEAVE,
  TP_MODE_WEIGHTED,
  TP_MODE_PREFERRED_MANY,
  TP_MODE_RATIO,
  TP_MODE_AUTO
};

enum tp_strict { TP_STRICT_NONE, TP_STRICT_ADVISORY, TP_STRICT_STRICT };

struct tp_config {
  enum tp_mode mode;
  enum tp_strict strict;
  tp_nodemask nodes;                    /* nodes, interleave, weighted, preferred-many */
  unsigned short weights[TP_MAX_NODES]; /* weighted: per node, 0 = not used */
  unsigned ratio_fast, ratio_slow;      /* ratio:FAST:SLOW */
  size_t min_size, max_size;            /* placed when min <= size <= max */
  int log_stderr;                       /* TIER_PRELOAD_LOG=1|stderr */
  char log_path[TP_PATH_MAX];           /* TIER_PRELOAD_LOG=FILE */
  char stats_path[TP_PATH_MAX];         /* TIER_PRELOAD_STATS=FILE (%p -> pid) */
  char policy_text[64];                 /* TIER_PRELOAD_POLICY as given, for reports */
};

/* ---- config.c: environment parsing (pure; writes one message on error) ---- */
/* Returns 0, or -1 with `err` holding "VARIABLE: why" (cfg->mode = OFF). */
int tp_parse_config(const char* policy, const char* threshold, const char* strict, const char* log,
                    const char* stats, struct tp_config* cfg, char* err, size_t err_len);
int tp_parse_size(const char* s, const char* end, size_t* out);
/* "0,2-3" (also the sysfs list syntax); returns 0 or -1. */
int tp_parse_nodelist(const char* s, const char* end, tp_nodemask* out);

/* ---- topology.c: nodes and tiers read once from sysfs ---- */
struct tp_topology {
  int nr_nodes;                 /* highest possible node + 1 */
  tp_nodemask memory;           /* has_memory */
  short rank[TP_MAX_NODES];     /* 0 = fastest tier; -1 = no memory */
  int tiers_from_kernel;        /* memory_tiering/ existed */
  short fast_for[TP_MAX_NODES]; /* per CPU node: nearest node of the fastest tier */
  short slow_for[TP_MAX_NODES]; /* per CPU node: nearest node of a slower tier (or fast) */
  short set_for[TP_MAX_NODES];  /* per CPU node: nearest node of the policy's set */
  int has_slow_tier;
};
/* `root` prefixes every path ("" on a real machine, a fixture tree in tests).
 * `set` may be NULL. Returns 0, or -1 when /sys/devices/system/node is unreadable. */
int tp_read_topology(const char* root, const tp_nodemask* set, struct tp_topology* topo);

/* ---- sysfs.c: raw file reads into caller buffers ---- */
ssize_t tp_read_file(const char* root, const char* path, char* buf, size_t len);
/* Appends at most cap-1 bytes; always NUL-terminates. */
void tp_str_append(char* dst, size_t cap, const char* src);
void tp_str_append_u64(char* dst, size_t cap, uint64_t v);

/* ---- placement.c: which node(s) a placed mapping gets, and mbind ---- */
enum tp_kind { TP_KIND_NONE, TP_KIND_LOCAL, TP_KIND_NODE, TP_KIND_SET, TP_KIND_STRIPE };
struct tp_decision {
  int32_t kind; /* enum tp_kind */
  int32_t node; /* NODE: the node; LOCAL/SET: the node the kernel will use first */
  int32_t fast; /* ratio: 1 when counted as fast bytes, 0 as slow, -1 not ratio */
  int32_t unused;
};
struct tp_decision tp_decide(size_t len);
/* Binds [addr, addr+len) before first touch. 0 or -1 (errno set). */
int tp_apply(void* addr, size_t len, const struct tp_decision* d);
/* Bytes of a `len` mapping on each node for `d`, through cb(node, bytes). */
void tp_split(size_t len, const struct tp_decision* d,
              void (*cb)(int node, size_t bytes, void* arg), void* arg);

/* ---- placed.c: mmap'd allocations with a header before the user pointer ---- */
void* tp_placed_alloc(size_t size, size_t align);
void tp_placed_free(void* p);
void* tp_placed_realloc(void* p, size_t size); /* stays placed */
size_t tp_placed_usable(const void* p);
int tp_is_placed(const void* p);
/* The inline first half of tp_is_placed(): bit 3 of the word at p-8 is never
 * set in a glibc chunk header (placed.c), so small frees stop here. */
/* Not instrumented: under ASan (tests only) p-8 is ASan's chunk header. */
#define TP_NO_ASAN __attribute__((no_sanitize("address")))
TP_NO_ASAN static inline int tp_maybe_placed(const void* p) {
  size_t word;
  __builtin_memcpy(&word, (const char*)p - sizeof word, sizeof word);
  return (word & 8) != 0;
}

/* ---- stats.c ---- */
void tp_stats_identify(const struct tp_config* cfg, int nr_nodes); /* at init: no syscalls */
void tp_stats_setup(const struct tp_config* cfg, int nr_nodes);    /* constructor: memfd */
void tp_stats_add(const struct tp_decision* d, size_t len, int sign);
void tp_stats_fallback(void);
void tp_stats_after_fork_child(void);
void tp_stats_write_file(const char* path);
void tp_stats_log_summary(int fd);
uint64_t tp_stats_node_bytes(int node);

/* ---- tierd.c: `auto` asks tierd for this pid's class ---- */
/* Returns 1 online, 0 offline, -1 unknown/no tierd. */
int tp_tierd_class(const char* socket_path, int pid);

/* ---- state.c: global state and lazy init ---- */
extern struct tp_config tp_cfg;
extern struct tp_topology tp_topo;
void tp_init_slow(void);
void tp_reinit_for_tests(void); /* re-read the environment (unit tests) */
const char* tp_warning(void);   /* the start-up warning, "" when none */
#ifndef __cplusplus
extern atomic_int tp_state;             /* 0 uninit, 1 initialising, 2 ready */
extern atomic_int tp_auto_mode;         /* auto resolved: TP_MODE_FAST/SLOW/LOCAL */
extern atomic_ullong tp_ratio_bytes[2]; /* [0] slow, [1] fast: ratio bookkeeping */
/* The smallest size placed; 0 until initialised so that the first call takes
 * the slow path, SIZE_MAX when placement is off. One load and one compare on
 * the small-allocation path. */
extern size_t tp_place_min;
int tp_should_place_slow(size_t size);
static inline int tp_should_place(size_t size) {
  if (__builtin_expect(size < tp_place_min, 1)) return 0;
  return tp_should_place_slow(size);
}
#endif

/* ---- alloc.c: the allocator API the exported symbols forward to ---- */
void* tp_malloc(size_t n);
void tp_free(void* p);
void* tp_calloc(size_t n, size_t m);
void* tp_realloc(void* p, size_t n);
void* tp_reallocarray(void* p, size_t n, size_t m);
int tp_posix_memalign(void** out, size_t align, size_t n);
void* tp_memalign(size_t align, size_t n);
void* tp_valloc(size_t n);
void* tp_pvalloc(size_t n);
size_t tp_malloc_usable_size(void* p);

#ifdef __cplusplus
}
#endif

#endif
