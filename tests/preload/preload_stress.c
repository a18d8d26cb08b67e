/* 16 threads allocate, reallocate and free random sizes across the placement
 * threshold while the main thread forks repeatedly and each child allocates
 * too. Every block carries a pattern checked before it is reallocated or
 * freed. Deadlocks are bounded by alarm(): a hung child or parent dies of
 * SIGALRM and the run fails.
 *
 * Usage: preload_stress [SECONDS [THREADS]]   (also TIER_STRESS_SECONDS)
 * Built twice: against the exported symbols (run under LD_PRELOAD) and with
 * -DTP_STRESS_DIRECT against tp_* in-process (the ASan build). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef TP_STRESS_DIRECT
#include "tp_internal.h"
#define A_MALLOC tp_malloc
#define A_FREE tp_free
#define A_REALLOC tp_realloc
#define A_CALLOC tp_calloc
#else
#define A_MALLOC malloc
#define A_FREE free
#define A_REALLOC realloc
#define A_CALLOC calloc
#endif

#define SLOTS 48

struct block {
  unsigned char* p;
  size_t n;
  uint32_t seed;
};

static atomic_int corrupt;
static atomic_ullong ops;
static atomic_int stop;

static uint32_t next_rand(uint32_t* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* GCC 12's ASan allocator can deadlock in the child of a multithreaded fork
 * (a thread held its mutex at fork time: seen in gdb in
 * SizeClassAllocator64::GetFromAllocator), and in the ASan build the small
 * path is ASan's allocator. There the children allocate placed sizes only:
 * our own path, which takes no lock. */
#if defined(TP_STRESS_DIRECT) && defined(__SANITIZE_ADDRESS__)
static const int child_placed_only = 1;
#else
static const int child_placed_only = 0;
#endif
static int in_child;

/* Mostly small, some around the 1 MiB default threshold, a few large. */
static size_t random_size(uint32_t* s) {
  if (in_child && child_placed_only) return (1 << 20) + next_rand(s) % (4 * 1024 * 1024);
  const uint32_t r = next_rand(s) % 100;
  if (r < 60) return next_rand(s) % 2048;
  if (r < 85) return 512 * 1024 + next_rand(s) % (1024 * 1024);
  return next_rand(s) % (6 * 1024 * 1024);
}

/* Pattern on the first and last 4 KiB and one byte per page in between:
 * cheap for large blocks, still catches lost or shifted pages. */
static size_t next_index(size_t i, size_t n) {
  const size_t tail = n > 4096 ? n - 4096 : 0;
  if (i < 4096 || i >= tail) return i + 1;
  return i + 4096 < tail ? i + 4096 : tail;
}

static void pattern(struct block* b, int check) {
  for (size_t i = 0; i < b->n; i = next_index(i, b->n)) {
    const unsigned char v = (unsigned char)(b->seed + i * 131);
    if (!check) {
      b->p[i] = v;
    } else if (b->p[i] != v) {
      atomic_fetch_add(&corrupt, 1);
      return;
    }
  }
}

static void churn(struct block* slots, int nslots, uint32_t* seed, long rounds) {
  for (long r = 0; rounds < 0 || r < rounds; ++r) {
    if (rounds < 0 && atomic_load_explicit(&stop, memory_order_relaxed)) break;
    struct block* b = &slots[next_rand(seed) % (uint32_t)nslots];
    const uint32_t op = next_rand(seed) % 3;
    if (b->p != NULL) pattern(b, 1);
    if (op == 0 || b->p == NULL) {
      A_FREE(b->p);
      b->n = random_size(seed);
      b->p = (next_rand(seed) & 1) ? A_MALLOC(b->n) : A_CALLOC(1, b->n);
    } else if (op == 1) {
      const size_t n = random_size(seed);
      unsigned char* q = A_REALLOC(b->p, n);
      if (q == NULL && n != 0) continue;
      b->p = q;
      /* the head (written byte by byte) survived the move */
      b->n = q == NULL ? 0 : (n < b->n ? n : b->n);
      if (b->n > 4096) b->n = 4096;
      if (b->p != NULL) pattern(b, 1);
      b->n = q == NULL ? 0 : n;
    } else {
      A_FREE(b->p);
      b->p = NULL;
      b->n = 0;
    }
    if (b->p != NULL) {
      b->seed = next_rand(seed);
      pattern(b, 0);
    }
    atomic_fetch_add_explicit(&ops, 1, memory_order_relaxed);
  }
}

static void release(struct block* slots, int nslots) {
  for (int i = 0; i < nslots; ++i) {
    if (slots[i].p != NULL) pattern(&slots[i], 1);
    A_FREE(slots[i].p);
    slots[i].p = NULL;
  }
}

static void* worker(void* arg) {
  uint32_t seed = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
  struct block slots[SLOTS];
  memset(slots, 0, sizeof slots);
  churn(slots, SLOTS, &seed, -1);
  release(slots, SLOTS);
  return NULL;
}

/* The child works on fresh blocks and on a few it inherited mid-flight.
 * A hung child dies of SIGALRM after 100 s: a deadlock bound, far from the
 * child's typical well-under-a-second. 20 s was once too short on a 2-core
 * host running a guest, a busy loop and ctest -j2 beside the parent's 16
 * threads ("child N: signal 14" after 2614 operations in 10 s). The whole
 * run's alarm (SECONDS + 120) still bounds the parent. */
static int child(uint32_t seed) {
  alarm(100);
  in_child = 1;
  struct block slots[8];
  memset(slots, 0, sizeof slots);
  churn(slots, 8, &seed, 200);
  release(slots, 8);
  return atomic_load(&corrupt) == 0 ? 0 : 3;
}

int main(int argc, char** argv) {
  const char* env = getenv("TIER_STRESS_SECONDS");
  int seconds = argc > 1 ? atoi(argv[1]) : (env != NULL ? atoi(env) : 30);
  int threads = argc > 2 ? atoi(argv[2]) : 16;
  if (seconds <= 0 || threads <= 0 || threads > 256) {
    fprintf(stderr, "usage: preload_stress [SECONDS [THREADS]]\n");
    return 2;
  }
  alarm((unsigned)seconds + 120); /* the whole run, deadlock or not */
  pthread_t tids[256];
  for (int i = 0; i < threads; ++i)
    pthread_create(&tids[i], NULL, worker, (void*)(uintptr_t)(i + 1));
  const time_t end = time(NULL) + seconds;
  unsigned forks = 0, bad_children = 0;
  uint32_t seed = 99;
  while (time(NULL) < end) {
    pid_t pid = fork();
    if (pid == 0) _exit(child(next_rand(&seed)));
    if (pid < 0) continue;
    int status = 0;
    waitpid(pid, &status, 0);
    ++forks;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++bad_children;
      fprintf(stderr, "child %d: %s %d\n", pid, WIFEXITED(status) ? "exit" : "signal",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    next_rand(&seed);
    usleep(20000);
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < threads; ++i) pthread_join(tids[i], NULL);
  printf(
      "preload_stress: %d s, %d threads, %llu operations, %u forks, %u bad children, %d corrupt\n",
      seconds, threads, (unsigned long long)atomic_load(&ops), forks, bad_children,
      atomic_load(&corrupt));
  return (bad_children == 0 && atomic_load(&corrupt) == 0) ? 0 : 1;
}
