/* tier-alloc-hold: allocates BYTES through malloc (so libtierpreload places
 * it when preloaded), in COUNT blocks, writes every page, prints one JSON
 * line and holds the memory until SIGTERM; then checks every page and exits
 * 0 when all are intact. For `tierctl stats --pid` tests on the host and in
 * the emulated machine (tests/vm/scenarios/preload_place.sh).
 * Usage: tier-alloc-hold SIZE_MIB [COUNT] */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t done;
static void on_term(int sig) {
  (void)sig;
  done = 1;
}

int main(int argc, char** argv) {
  const long mib = argc > 1 ? atol(argv[1]) : 0;
  const long count = argc > 2 ? atol(argv[2]) : 1;
  if (mib <= 0 || count <= 0 || count > 4096) {
    fprintf(stderr, "usage: tier-alloc-hold SIZE_MIB [COUNT]\n");
    return 2;
  }
  signal(SIGTERM, on_term);
  const size_t each = (size_t)mib * 1048576 / (size_t)count;
  unsigned char** blocks = calloc((size_t)count, sizeof *blocks);
  for (long b = 0; b < count; ++b) {
    blocks[b] = malloc(each);
    if (blocks[b] == NULL) {
      fprintf(stderr, "tier-alloc-hold: malloc(%zu) failed\n", each);
      return 1;
    }
    for (size_t i = 0; i < each; i += 4096) blocks[b][i] = (unsigned char)(b + i / 4096);
  }
  printf("{\"pid\":%d,\"bytes\":%zu,\"blocks\":%ld,\"first\":\"%p\"}\n", getpid(),
         each * (size_t)count, count, (void*)blocks[0]);
  fflush(stdout);
  while (!done) pause();
  size_t bad = 0;
  for (long b = 0; b < count; ++b) {
    for (size_t i = 0; i < each; i += 4096) bad += blocks[b][i] != (unsigned char)(b + i / 4096);
    free(blocks[b]);
  }
  free(blocks);
  printf("{\"verified\":true,\"bad_pages\":%zu}\n", bad);
  return bad == 0 ? 0 : 1;
}
