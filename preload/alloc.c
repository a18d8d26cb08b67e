/* The allocator: each entry point decides placed (size inside the window)
 * or glibc's own allocator through its __libc_* entry points, which need no
 * symbol lookup (dlsym re-entering calloc is how memkind's autohbw broke). */
#include <errno.h>
#include <string.h>

#include "tp_internal.h"

#if defined(__SANITIZE_ADDRESS__)
/* Only tierpreload_core in the ASan build (tests): ASan owns the heap and
 * intercepts __libc_memalign, so there the small path is ASan's allocator
 * (its public names) and its own usable size. The library itself is never
 * sanitized and always takes the __libc_* path below. */
#include <malloc.h>
#include <stdlib.h>
#define SMALL(name) name
static size_t small_usable(const void* p) {
  return malloc_usable_size((void*)(uintptr_t)p);
}
#else
extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void* __libc_valloc(size_t);
extern void* __libc_pvalloc(size_t);
#define SMALL(name) __libc_##name

/* glibc's usable size from its chunk header (malloc.c musable(): size field
 * at p-8, flags in bits 0-2, mmapped chunks carry a 16-byte header). Used to
 * copy a glibc block into a placed one without a symbol lookup. */
static size_t small_usable(const void* p) {
  size_t word;
  memcpy(&word, (const char*)p - sizeof word, sizeof word);
  const size_t chunk = word & ~(size_t)7;
  return (word & 2) ? chunk - 2 * sizeof(size_t) : chunk - sizeof(size_t);
}
#endif

#define PAGE 4096UL

static int strict(void) {
  return tp_cfg.strict == TP_STRICT_STRICT;
}

void* tp_malloc(size_t n) {
  if (__builtin_expect(tp_should_place(n), 0)) {
    void* p = tp_placed_alloc(n, 16);
    if (p != NULL || strict()) return p;
  }
  return SMALL(malloc)(n);
}

void tp_free(void* p) {
  if (p == NULL) return;
  if (__builtin_expect(tp_maybe_placed(p), 0) && tp_is_placed(p)) {
    tp_placed_free(p);
    return;
  }
  SMALL(free)(p);
}

void* tp_calloc(size_t n, size_t m) {
  size_t total;
  if (__builtin_mul_overflow(n, m, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  if (__builtin_expect(tp_should_place(total), 0)) {
    void* p = tp_placed_alloc(total, 16); /* fresh anonymous pages are zero */
    if (p != NULL || strict()) return p;
  }
  return SMALL(calloc)(n, m);
}

static void* move_block(void* old, size_t old_usable, void* fresh, size_t n) {
  if (fresh == NULL) return NULL; /* old stays valid, errno is ENOMEM */
  memcpy(fresh, old, old_usable < n ? old_usable : n);
  tp_free(old);
  return fresh;
}

void* tp_realloc(void* p, size_t n) {
  if (p == NULL) return tp_malloc(n);
  if (tp_is_placed(p)) {
    if (n == 0) { /* glibc: realloc(p, 0) frees and returns NULL */
      tp_placed_free(p);
      return NULL;
    }
    if (tp_should_place(n)) return tp_placed_realloc(p, n);
    return move_block(p, tp_placed_usable(p), SMALL(malloc)(n), n);
  }
  if (n != 0 && tp_should_place(n)) {
    void* fresh = tp_placed_alloc(n, 16);
    if (fresh != NULL || strict()) return move_block(p, small_usable(p), fresh, n);
  }
  return SMALL(realloc)(p, n);
}

void* tp_reallocarray(void* p, size_t n, size_t m) {
  size_t total;
  if (__builtin_mul_overflow(n, m, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return tp_realloc(p, total);
}

void* tp_memalign(size_t align, size_t n) {
  if (align <= 16) return tp_malloc(n);
  if (align > SIZE_MAX / 2 + 1) { /* glibc's limit */
    errno = EINVAL;
    return NULL;
  }
  if ((align & (align - 1)) != 0)
    align = (size_t)1 << (64 - __builtin_clzl(align)); /* glibc rounds up */
  if (__builtin_expect(tp_should_place(n), 0)) {
    void* p = tp_placed_alloc(n, align);
    if (p != NULL || strict()) return p;
  }
  return SMALL(memalign)(align, n);
}

int tp_posix_memalign(void** out, size_t align, size_t n) {
  if (align == 0 || align % sizeof(void*) != 0 || (align & (align - 1)) != 0) return EINVAL;
  const int saved = errno;
  void* p = tp_memalign(align, n);
  errno = saved; /* posix_memalign reports through its return value only */
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

void* tp_valloc(size_t n) {
  if (tp_should_place(n)) return tp_memalign(PAGE, n);
  return SMALL(valloc)(n);
}

void* tp_pvalloc(size_t n) {
  if (n > SIZE_MAX - PAGE) {
    errno = ENOMEM;
    return NULL;
  }
  const size_t rounded = n == 0 ? PAGE : (n + PAGE - 1) & ~(PAGE - 1);
  if (tp_should_place(rounded)) return tp_memalign(PAGE, rounded);
  return SMALL(pvalloc)(n);
}

size_t tp_malloc_usable_size(void* p) {
  if (p == NULL) return 0;
  return tp_is_placed(p) ? tp_placed_usable(p) : small_usable(p);
}

#ifdef TP_EXPORT_SYMBOLS
/* The exported symbols are aliases of the tp_* entry points (no extra call).
 * aligned_alloc is memalign, as in glibc 2.36 (same address in libc.so.6);
 * cfree is still bound by old binaries as cfree@GLIBC_2.2.5. */
#define TP_ALIAS(name, target) \
  extern __typeof__(target) name __attribute__((alias(#target), visibility("default")))
TP_ALIAS(malloc, tp_malloc);
TP_ALIAS(free, tp_free);
TP_ALIAS(cfree, tp_free);
TP_ALIAS(calloc, tp_calloc);
TP_ALIAS(realloc, tp_realloc);
TP_ALIAS(reallocarray, tp_reallocarray);
TP_ALIAS(posix_memalign, tp_posix_memalign);
TP_ALIAS(aligned_alloc, tp_memalign);
TP_ALIAS(memalign, tp_memalign);
TP_ALIAS(valloc, tp_valloc);
TP_ALIAS(pvalloc, tp_pvalloc);
TP_ALIAS(malloc_usable_size, tp_malloc_usable_size);
#endif
