/*
 * tier-model-cal: run inside the emulated machine at boot, before any
 * scenario, while the tiermodel plugin still charges nothing. Measures what
 * TCG itself spends on this host right now, from one CPU, on every node
 * with memory (they differ: the host backs each node's RAM differently):
 *   t0     ns per dependent load of a pointer chase over a random cycle of
 *          cache lines (every load a miss of the plugin's cache model),
 *   tline  ns per 64-byte line of a sequential read,
 * hands them to the plugin through its doorbell (three 8-byte stores in a
 * row: magic, command, value; see model.h), then switches charging on with
 * the CPU's node as the reference. From then on a miss costs what brings
 * its node's own base to HMAT's ratio over the fastest pair, so the guest's
 * measurements see HMAT's ratios whatever the host's speed.
 *
 * usage: tier-model-cal [--size MIB] [--no-charge]
 *   --size MIB   buffer per node, at least 4 x the plugin's cache (default 16)
 *   --no-charge  measure and print the bases only; the plugin stays off
 * Prints each node's base ("base node N t0 NS tline NS") and the reference.
 * Exit 0, 1 on failure, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "model.h"

#define LINE 64
#define MPOL_BIND_ 2 /* <linux/mempolicy.h>'s MPOL_BIND, without libnuma */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* A random single cycle through every line (Sattolo's shuffle). */
static void build_chase(char* buf, size_t lines) {
  size_t* order = malloc(lines * sizeof *order);
  if (!order) {
    perror("tier-model-cal: malloc");
    exit(1);
  }
  for (size_t i = 0; i < lines; ++i) order[i] = i;
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (size_t i = lines - 1; i > 0; --i) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    size_t j = (size_t)(seed % i);
    size_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < lines; ++i)
    *(char**)(buf + order[i] * LINE) = buf + order[(i + 1) % lines] * LINE;
  free(order);
}

static double chase_ns(char* buf, size_t lines) {
  double samples[5];
  void* p = buf;
  for (size_t i = 0; i < lines; ++i) p = *(void**)p; /* warm the TLB and caches */
  for (int r = 0; r < 5; ++r) {
    double t = now_s();
    for (size_t i = 0; i < lines; ++i) p = *(void**)p;
    samples[r] = (now_s() - t) * 1e9 / (double)lines;
  }
  __asm__ volatile("" : : "r"(p));
  qsort(samples, 5, sizeof samples[0], cmp_double);
  return samples[2];
}

static double stream_ns(const char* buf, size_t bytes) {
  double samples[5];
  uint64_t sum = 0;
  for (int r = 0; r < 5; ++r) {
    const uint64_t* w = (const uint64_t*)buf;
    size_t n = bytes / 8;
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    double t = now_s();
    for (size_t i = 0; i + 8 <= n; i += 8) {
      a0 += w[i], a1 += w[i + 1], a2 += w[i + 2], a3 += w[i + 3];
      a4 += w[i + 4], a5 += w[i + 5], a6 += w[i + 6], a7 += w[i + 7];
    }
    samples[r] = (now_s() - t) * 1e9 / (double)(bytes / LINE);
    sum += a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  }
  __asm__ volatile("" : : "r"(sum));
  qsort(samples, 5, sizeof samples[0], cmp_double);
  return samples[2];
}

/* Three 8-byte stores in a row, from one instruction stream, to memory the
 * compiler cannot drop. */
static void ring(uint64_t command, int node, uint64_t value) {
  static volatile uint64_t cell[3];
  uint64_t magic = TM_DOOR_MAGIC, word = TM_DOOR_TAG | ((uint64_t)node << 8) | command;
  __asm__ volatile(
      "movq %1, 0(%0)\n\t"
      "movq %2, 8(%0)\n\t"
      "movq %3, 16(%0)\n\t"
      :
      : "r"(cell), "r"(magic), "r"(word), "r"(value)
      : "memory");
}

static void usage(void) {
  fprintf(stderr, "usage: tier-model-cal [--size MIB] [--no-charge]\n");
  exit(2);
}

static long parse_arg(const char* flag, const char* s, long lo, long hi) {
  char* end;
  errno = 0;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || !*s || errno || *end || v < lo || v > hi) {
    fprintf(stderr, "tier-model-cal: %s '%s': expected a number from %ld to %ld\n", flag,
            s ? s : "", lo, hi);
    exit(2);
  }
  return v;
}

/* The nodes in a sysfs node list file ("0-3", "0,2"). */
static int node_list(const char* path, int* nodes, int max) {
  FILE* f = fopen(path, "r");
  char text[256] = "";
  if (!f || !fgets(text, sizeof text, f)) {
    fprintf(stderr, "tier-model-cal: %s: %s\n", path, f ? "empty" : strerror(errno));
    exit(1);
  }
  fclose(f);
  int n = 0;
  for (char *save = NULL, *part = strtok_r(text, ",\n", &save); part;
       part = strtok_r(NULL, ",\n", &save)) {
    int lo, hi;
    if (sscanf(part, "%d-%d", &lo, &hi) != 2) hi = lo = atoi(part);
    for (int i = lo; i <= hi && n < max; ++i) nodes[n++] = i;
  }
  return n;
}

/* The first CPU of a node. */
static int first_cpu(int node) {
  char path[96];
  int cpus[1024];
  snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
  if (node_list(path, cpus, 1024) < 1) {
    fprintf(stderr, "tier-model-cal: node %d has no CPU\n", node);
    exit(1);
  }
  return cpus[0];
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    fprintf(stderr, "tier-model-cal: CPU %d: %s\n", cpu, strerror(errno));
    exit(1);
  }
}

/* Measure node's memory: the buffer bound to it, first-touched, read, chased. */
static void measure(int node, size_t bytes, double* t0, double* tline) {
  unsigned long mask = 1ul << node;
  if (syscall(SYS_set_mempolicy, MPOL_BIND_, &mask, sizeof mask * 8) != 0) {
    fprintf(stderr, "tier-model-cal: set_mempolicy(MPOL_BIND, node %d): %s\n", node,
            strerror(errno));
    exit(1);
  }
  char* buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) {
    fprintf(stderr, "tier-model-cal: mmap %zu bytes: %s\n", bytes, strerror(errno));
    exit(1);
  }
  memset(buf, 1, bytes);
  *tline = stream_ns(buf, bytes);
  build_chase(buf, bytes / LINE);
  *t0 = chase_ns(buf, bytes / LINE);
  munmap(buf, bytes);
}

static uint64_t ps(double ns) {
  return (uint64_t)(ns * 1e3);
}

int main(int argc, char** argv) {
  long mib = 16;
  int charge = 1;
  for (int i = 1; i < argc; ++i) {
    const char* next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--size")) {
      mib = parse_arg("--size", next, 4, 4096);
      ++i;
    } else if (!strcmp(argv[i], "--no-charge")) {
      charge = 0;
    } else {
      usage();
    }
  }
  const size_t bytes = (size_t)mib << 20;
  int mem[TM_MAX_NODES], cpu_nodes[TM_MAX_NODES];
  int nmem = node_list("/sys/devices/system/node/has_memory", mem, TM_MAX_NODES);
  if (node_list("/sys/devices/system/node/has_cpu", cpu_nodes, TM_MAX_NODES) < 1) {
    fprintf(stderr, "tier-model-cal: no node with CPUs\n");
    return 1;
  }
  const int ref = cpu_nodes[0];
  double t0, tline;
  pin(first_cpu(ref));
  /* TCG's soft TLB grows with use: a first pass over every node lets it
   * reach the size it will have under the measurements that follow. */
  for (int i = 0; i < nmem; ++i) measure(mem[i], bytes, &t0, &tline);
  for (int i = 0; i < nmem; ++i) {
    measure(mem[i], bytes, &t0, &tline);
    printf("base node %d t0 %.1f tline %.1f\n", mem[i], t0, tline);
    if (charge) {
      ring(TM_DOOR_SET_T0, mem[i], ps(t0));
      ring(TM_DOOR_SET_TLINE, mem[i], ps(tline));
    }
  }
  printf("reference node %d\n", ref);
  if (!charge) return 0;
  ring(TM_DOOR_CHARGE, 0, (uint64_t)ref);
  return 0;
}
