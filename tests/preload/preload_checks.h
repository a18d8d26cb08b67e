/* Allocator semantics checks shared by preload_probe (real symbols, run
 * under LD_PRELOAD) and preload_core_test (tp_* in-process, under ASan). */
#ifndef TIER_PRELOAD_CHECKS_H
#define TIER_PRELOAD_CHECKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tpc_api {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*reallocarray)(void*, size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*memalign)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
  size_t (*malloc_usable_size)(void*);
};

/* What a placed allocation must show: the VMA's policy mode (-1: don't
 * check) and the node its touched pages are on (-1: don't check). */
struct tpc_expect {
  size_t large; /* a size inside the placement window */
  int policy_mode;
  int node;
};

/* Runs every check; prints "FAIL: ..." lines to stderr; returns the number
 * of failures. */
int tpc_run_all(const struct tpc_api* api, const struct tpc_expect* expect);

#ifdef __cplusplus
}
#endif

#endif
