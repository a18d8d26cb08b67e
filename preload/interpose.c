/* The exported allocator symbols. Everything else in the library has hidden
 * visibility; these forward to alloc.c. aligned_alloc is memalign, as in
 * glibc 2.36 (same address in its libc.so.6). */
#include <malloc.h>
#include <stdlib.h>

#include "tp_internal.h"

#define TP_EXPORT __attribute__((visibility("default")))

TP_EXPORT void* malloc(size_t n) {
  return tp_malloc(n);
}
TP_EXPORT void free(void* p) {
  tp_free(p);
}
TP_EXPORT void* calloc(size_t n, size_t m) {
  return tp_calloc(n, m);
}
TP_EXPORT void* realloc(void* p, size_t n) {
  return tp_realloc(p, n);
}
TP_EXPORT void* reallocarray(void* p, size_t n, size_t m) {
  return tp_reallocarray(p, n, m);
}
TP_EXPORT int posix_memalign(void** out, size_t align, size_t n) {
  return tp_posix_memalign(out, align, n);
}
TP_EXPORT void* aligned_alloc(size_t align, size_t n) {
  return tp_memalign(align, n);
}
TP_EXPORT void* memalign(size_t align, size_t n) {
  return tp_memalign(align, n);
}
TP_EXPORT void* valloc(size_t n) {
  return tp_valloc(n);
}
TP_EXPORT void* pvalloc(size_t n) {
  return tp_pvalloc(n);
}
TP_EXPORT size_t malloc_usable_size(void* p) {
  return tp_malloc_usable_size(p);
}

/* Old binaries still bind cfree@GLIBC_2.2.5 (no longer declared). */
TP_EXPORT void cfree(void* p);
TP_EXPORT void cfree(void* p) {
  tp_free(p);
}
