/* Run under LD_PRELOAD=libtierpreload.so: the allocator checks through the
 * real exported symbols, then what the library itself reports.
 * Usage: preload_probe LARGE_BYTES POLICY_MODE NODE [--expect-placed|--expect-plain]
 * (POLICY_MODE/NODE -1 = not checked). Exit 0 when every check passed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload_checks.h"

/* /proc/self/maps names the library and its statistics mapping. */
static int maps_contain(const char* needle) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  while (f != NULL && fgets(line, sizeof line, f) != NULL) found |= strstr(line, needle) != NULL;
  if (f != NULL) fclose(f);
  return found;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr,
            "usage: preload_probe LARGE POLICY_MODE NODE [--expect-placed|--expect-plain]\n");
    return 2;
  }
  const struct tpc_api api = {
      malloc,        free,     calloc, realloc, reallocarray,      posix_memalign,
      aligned_alloc, memalign, valloc, pvalloc, malloc_usable_size};
  const struct tpc_expect expect = {strtoull(argv[1], NULL, 0), atoi(argv[2]), atoi(argv[3])};
  int failures = tpc_run_all(&api, &expect);
  void (*cfree_fn)(void*) = NULL;
  *(void**)&cfree_fn = dlsym(RTLD_DEFAULT, "cfree");    /* POSIX's way round ISO C */
  if (cfree_fn != NULL) cfree_fn(malloc(expect.large)); /* frees a placed block */
  const int loaded = maps_contain("libtierpreload.so");
  const int channel = maps_contain("/memfd:tier-preload");
  if (argc > 4 && strcmp(argv[4], "--expect-placed") == 0 && !(loaded && channel)) {
    fprintf(stderr, "FAIL: library loaded %d, statistics mapping %d\n", loaded, channel);
    ++failures;
  }
  if (argc > 4 && strcmp(argv[4], "--expect-plain") == 0 && channel) {
    fprintf(stderr, "FAIL: statistics mapping present although placement is off\n");
    ++failures;
  }
  printf("preload_probe: %d failures, cfree %s\n", failures, cfree_fn ? "found" : "absent");
  return failures == 0 ? 0 : 1;
}
