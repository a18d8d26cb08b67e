/* Allocation throughput for scripts/bench-preload.sh: run once per allocator
 * (LD_PRELOAD of each), it prints one figure per line.
 *   preload_bench small THREADS   malloc/free pairs of 16-512 B, Mops/s (all threads)
 *   preload_bench large BYTES     malloc + touch first byte + free, ns per allocation */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SMALL_ROUNDS 20000000L
#define LARGE_ROUNDS 4000L

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void* small_pairs(void* arg) {
  (void)arg;
  void* volatile sink;
  for (long i = 0; i < SMALL_ROUNDS; ++i) {
    void* p = malloc(16 + (size_t)(i % 32) * 16); /* 16..512 B */
    sink = p;
    free(p);
  }
  (void)sink;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: preload_bench small THREADS | large BYTES\n");
    return 2;
  }
  if (strcmp(argv[1], "small") == 0) {
    const int threads = atoi(argv[2]);
    pthread_t tids[64];
    const double t0 = now();
    for (int i = 0; i < threads && i < 64; ++i) pthread_create(&tids[i], NULL, small_pairs, NULL);
    for (int i = 0; i < threads && i < 64; ++i) pthread_join(tids[i], NULL);
    printf("%.1f\n", (double)SMALL_ROUNDS * threads / (now() - t0) / 1e6);
    return 0;
  }
  const size_t bytes = strtoull(argv[2], NULL, 0);
  const double t0 = now();
  for (long i = 0; i < LARGE_ROUNDS; ++i) {
    char* volatile p = malloc(bytes);
    p[0] = 1;
    free(p);
  }
  printf("%.0f\n", (now() - t0) / LARGE_ROUNDS * 1e9);
  return 0;
}
