/* See preload_checks.h. Each check names what it saw on failure. */
#define _GNU_SOURCE
#include "preload_checks.h"

#include <errno.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      ++failures;                                          \
      fprintf(stderr, "FAIL %s:%d: ", __func__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
    }                                                      \
  } while (0)

static void fill(unsigned char* p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)(seed + i * 31);
}
static int same(const unsigned char* p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != (unsigned char)(seed + i * 31)) return 0;
  return 1;
}

static void check_zero_and_unique(const struct tpc_api* a) {
  void* p = a->malloc(0);
  void* q = a->malloc(0);
  CHECK(p != NULL && q != NULL && p != q, "malloc(0) gave %p and %p", p, q);
  a->free(p);
  a->free(q);
  a->free(NULL);
  CHECK(a->malloc_usable_size(NULL) == 0, "malloc_usable_size(NULL) != 0");
}

static void check_overflow(const struct tpc_api* a) {
  errno = 0;
  void* p = a->calloc(SIZE_MAX / 2, 3);
  CHECK(p == NULL && errno == ENOMEM, "calloc overflow gave %p errno %d", p, errno);
  errno = 0;
  void* base = a->malloc(16);
  p = a->reallocarray(base, SIZE_MAX / 4, 8);
  CHECK(p == NULL && errno == ENOMEM, "reallocarray overflow gave %p errno %d", p, errno);
  a->free(base);
  void* out = NULL;
  CHECK(a->posix_memalign(&out, 3, 64) == EINVAL, "posix_memalign(align 3) not EINVAL");
  CHECK(a->posix_memalign(&out, 0, 64) == EINVAL, "posix_memalign(align 0) not EINVAL");
  errno = 0;
  p = a->malloc(SIZE_MAX - 4096);
  CHECK(p == NULL && errno == ENOMEM, "malloc(huge) gave %p errno %d", p, errno);
}

/* errno untouched by every successful call, small and placed. */
static void check_errno(const struct tpc_api* a, size_t large) {
  const size_t sizes[2] = {100, large};
  for (int i = 0; i < 2; ++i) {
    const size_t n = sizes[i];
    errno = 4242;
    void* p = a->malloc(n);
    void* q = a->calloc(1, n);
    p = a->realloc(p, n * 2);
    void* r = a->memalign(4096, n);
    void* s = NULL;
    int rc = a->posix_memalign(&s, 64, n);
    CHECK(errno == 4242 && p && q && r && rc == 0, "size %zu: errno %d after success", n, errno);
    a->free(p);
    a->free(q);
    a->free(r);
    a->free(s);
    CHECK(errno == 4242, "size %zu: free changed errno to %d", n, errno);
  }
}

static void check_calloc_zero(const struct tpc_api* a, size_t large) {
  unsigned char* p = a->calloc(large, 1);
  size_t bad = 0;
  for (size_t i = 0; p != NULL && i < large; ++i) bad += p[i] != 0;
  CHECK(p != NULL && bad == 0, "calloc(%zu): %zu non-zero bytes", large, bad);
  a->free(p);
}

/* small -> placed -> bigger placed -> small, contents kept at each step. */
static void check_realloc_across(const struct tpc_api* a, size_t large) {
  unsigned char* p = a->malloc(100);
  fill(p, 100, 7);
  p = a->realloc(p, large);
  CHECK(p != NULL && same(p, 100, 7), "small->placed realloc lost data");
  CHECK(a->malloc_usable_size(p) >= large, "usable %zu < %zu", a->malloc_usable_size(p), large);
  fill(p, large, 9);
  p = a->realloc(p, large * 4);
  CHECK(p != NULL && same(p, large, 9), "placed->placed grow lost data");
  fill(p, large * 4, 11);
  p = a->realloc(p, large + 4096);
  CHECK(p != NULL && same(p, large + 4096, 11), "placed shrink lost data");
  p = a->realloc(p, 100);
  CHECK(p != NULL && same(p, 100, 11), "placed->small realloc lost data");
  CHECK(a->malloc_usable_size(p) >= 100, "usable after shrink %zu", a->malloc_usable_size(p));
  a->free(p);
  p = a->realloc(NULL, large);
  CHECK(p != NULL, "realloc(NULL, large) failed");
  p = a->realloc(p, 0); /* glibc frees and returns NULL */
  CHECK(p == NULL, "realloc(placed, 0) returned %p", (void*)p);
}

static void check_one_aligned(const struct tpc_api* a, size_t align, size_t n) {
  void* ps[4] = {NULL, NULL, NULL, NULL};
  ps[0] = a->memalign(align, n);
  if (align >= sizeof(void*)) {
    CHECK(a->posix_memalign(&ps[1], align, n) == 0, "posix_memalign(%zu, %zu)", align, n);
  }
  ps[2] = a->aligned_alloc(align, n);
  for (int i = 0; i < 3; ++i) {
    if (i == 1 && align < sizeof(void*)) continue;
    CHECK(ps[i] != NULL && (uintptr_t)ps[i] % align == 0, "align %zu size %zu: %p (call %d)", align,
          n, ps[i], i);
    if (ps[i] == NULL) continue;
    CHECK(a->malloc_usable_size(ps[i]) >= n, "align %zu usable %zu < %zu", align,
          a->malloc_usable_size(ps[i]), n);
    memset(ps[i], 0xa5, n);
    a->free(ps[i]);
  }
}

static void check_aligned(const struct tpc_api* a, size_t large) {
  for (size_t align = 1; align <= ((size_t)1 << 20); align <<= 1) {
    check_one_aligned(a, align, 100);
    check_one_aligned(a, align, large);
  }
  const long page = sysconf(_SC_PAGESIZE);
  void* v = a->valloc(large);
  void* w = a->pvalloc(large + 1);
  void* s = a->valloc(10);
  CHECK(v && w && s && (uintptr_t)v % (uintptr_t)page == 0 && (uintptr_t)w % (uintptr_t)page == 0 &&
            (uintptr_t)s % (uintptr_t)page == 0,
        "valloc/pvalloc not page aligned");
  CHECK(w == NULL || a->malloc_usable_size(w) >= large + (size_t)page - 1, "pvalloc not rounded");
  a->free(v);
  a->free(w);
  a->free(s);
}

/* Where a placed allocation's memory went, asked from the kernel. */
static void check_placement(const struct tpc_api* a, const struct tpc_expect* e) {
  if (e->policy_mode < 0 && e->node < 0) return;
  unsigned char* p = a->malloc(e->large);
  memset(p, 1, e->large);
  if (e->policy_mode >= 0) {
    int mode = -1;
    unsigned long mask[16] = {0};
    long rc = syscall(SYS_get_mempolicy, &mode, mask, 1024UL, p + e->large / 2, MPOL_F_ADDR);
    CHECK(rc == 0 && mode == e->policy_mode, "policy of a placed block: rc %ld mode %d, want %d",
          rc, mode, e->policy_mode);
  }
  if (e->node >= 0) {
    int node = -1;
    long rc =
        syscall(SYS_get_mempolicy, &node, NULL, 0UL, p + e->large / 2, MPOL_F_NODE | MPOL_F_ADDR);
    CHECK(rc == 0 && node == e->node, "placed page on node %d (rc %ld), want %d", node, rc,
          e->node);
  }
  a->free(p);
}

int tpc_run_all(const struct tpc_api* api, const struct tpc_expect* expect) {
  failures = 0;
  check_zero_and_unique(api);
  check_overflow(api);
  check_errno(api, expect->large);
  check_calloc_zero(api, expect->large);
  check_realloc_across(api, expect->large);
  check_aligned(api, expect->large);
  check_placement(api, expect);
  return failures;
}
