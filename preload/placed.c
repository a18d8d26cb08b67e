/* Placed allocations: their own anonymous mapping, bound by tp_apply() before
 * anything touches it, with a 48-byte header right before the user pointer.
 *
 * Recognising one costs a load of the word at p-8, which for a glibc pointer
 * is its chunk's size field: glibc chunk sizes are multiples of 16 with flags
 * in bits 0-2, so bit 3 is never set there, and our header's last word
 * always sets it. The magic (xor'ed with p) then confirms it. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "tp_internal.h"

#define PAGE 4096UL
#define TP_TAG 0x5449455250524508ULL /* bit 3 set: never a glibc chunk size */
#define TP_MAGIC 0x9e3779b97f4a7c15ULL

struct tp_header {
  uint64_t magic; /* TP_MAGIC ^ p */
  uint64_t map_len;
  uint64_t offset; /* p - mapping start */
  struct tp_decision d;
  uint64_t tag; /* at p - 8 */
};
#define HDR sizeof(struct tp_header)
_Static_assert(sizeof(struct tp_header) == 48, "header layout");

static inline struct tp_header* header_of(const void* p) {
  return (struct tp_header*)(void*)((char*)(uintptr_t)p - HDR);
}

static inline uintptr_t align_up(uintptr_t v, uintptr_t a) {
  return (v + a - 1) & ~(a - 1);
}

TP_NO_ASAN int tp_is_placed(const void* p) {
  uint64_t tag;
  memcpy(&tag, (const char*)p - sizeof tag, sizeof tag);
  if (__builtin_expect((tag & 8) == 0, 1)) return 0;
  const struct tp_header* h = header_of(p);
  return tag == TP_TAG && h->magic == (TP_MAGIC ^ (uint64_t)(uintptr_t)p);
}

static void write_header(char* p, size_t map_len, size_t offset, const struct tp_decision* d) {
  struct tp_header* h = header_of(p);
  h->magic = TP_MAGIC ^ (uint64_t)(uintptr_t)p;
  h->map_len = map_len;
  h->offset = offset;
  h->d = *d;
  h->tag = TP_TAG;
}

void* tp_placed_alloc(size_t size, size_t align) {
  const int saved = errno;
  const size_t a = align < 16 ? 16 : align; /* a power of two (callers check) */
  if (size > SIZE_MAX - a - HDR - 2 * PAGE) {
    errno = ENOMEM;
    return NULL;
  }
  /* Up to a page the mapping's own alignment suffices; beyond, map extra and
   * trim the unused head and tail pages. */
  const size_t want = a <= PAGE ? align_up(HDR, a) + size : HDR + a + size;
  size_t map_len = align_up(want, PAGE);
  char* base = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    errno = ENOMEM;
    return NULL;
  }
  char* p = (char*)align_up((uintptr_t)base + HDR, a);
  char* start = (char*)((uintptr_t)(p - HDR) & ~(PAGE - 1));
  char* end = (char*)align_up((uintptr_t)(p + size), PAGE);
  if (end == start) end += PAGE; /* size 0 with MIN 0: still one page */
  if (start > base) munmap(base, (size_t)(start - base));
  if (end < base + map_len) munmap(end, (size_t)(base + map_len - end));
  map_len = (size_t)(end - start);
  struct tp_decision d = tp_decide(map_len);
  if (tp_apply(start, map_len, &d) != 0) {
    if (tp_cfg.strict == TP_STRICT_STRICT) {
      munmap(start, map_len);
      tp_stats_fallback();
      errno = ENOMEM;
      return NULL;
    }
    tp_stats_fallback(); /* advisory: keep the memory, wherever the kernel puts it */
    d.kind = TP_KIND_NONE;
    d.fast = -1;
  }
  write_header(p, map_len, (size_t)(p - start), &d);
  tp_stats_add(&d, map_len, +1);
  errno = saved;
  return p;
}

void tp_placed_free(void* p) {
  const int saved = errno;
  struct tp_header* h = header_of(p);
  const size_t map_len = h->map_len;
  const struct tp_decision d = h->d;
  char* start = (char*)p - h->offset;
  h->magic = 0; /* a second free of p is not recognised as ours */
  tp_stats_add(&d, map_len, -1);
  munmap(start, map_len);
  errno = saved;
}

size_t tp_placed_usable(const void* p) {
  const struct tp_header* h = header_of(p);
  return h->map_len - h->offset;
}

/* Stays placed: grows with mremap (the binding travels with the mapping),
 * except striped ones, whose layout depends on the length: copied anew. */
void* tp_placed_realloc(void* p, size_t size) {
  const int saved = errno;
  struct tp_header* h = header_of(p);
  const size_t offset = h->offset, old_len = h->map_len;
  const struct tp_decision d = h->d;
  if (size > SIZE_MAX - offset - PAGE) {
    errno = ENOMEM;
    return NULL;
  }
  const size_t new_len = align_up(offset + size, PAGE);
  if (new_len == old_len || (new_len < old_len && d.kind == TP_KIND_STRIPE)) return p;
  if (d.kind != TP_KIND_STRIPE) {
    char* start = (char*)p - offset;
    char* moved = mremap(start, old_len, new_len, MREMAP_MAYMOVE);
    if (moved != MAP_FAILED) {
      tp_stats_add(&d, old_len, -1);
      tp_stats_add(&d, new_len, +1);
      write_header(moved + offset, new_len, offset, &d);
      errno = saved;
      return moved + offset;
    }
    if (new_len < old_len) return p; /* shrinking in place cannot really fail */
  }
  void* fresh = tp_placed_alloc(size, 16);
  if (fresh == NULL) return NULL;
  const size_t usable = old_len - offset;
  memcpy(fresh, p, usable < size ? usable : size);
  tp_placed_free(p);
  errno = saved;
  return fresh;
}
