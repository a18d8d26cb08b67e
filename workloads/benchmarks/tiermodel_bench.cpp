// The latency plugin's own cost per guest access (tests/vm/plugin/model.c),
// the part that runs on every load and store: a cache hit, a miss counted
// only (uncalibrated), a charged miss (cost, queue, clock). QEMU's callback
// around it costs what docs/benchmarks.md "The latency model" measures.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <ctime>

extern "C" {
#include "model.h"
}

namespace {

const char* const kLayout =
    "cpus 0 0-1\ncpus 1 2-3\n"
    "range 0 0x0 0x40000000\nrange 1 0x40000000 0x80000000\n"
    "range 2 0x100000000 0x140000000\nrange 3 0x140000000 0x180000000\n"
    "hmat 0 0 80 21474836480\nhmat 0 1 140 10737418240\nhmat 0 2 250 8589934592\n"
    "hmat 0 3 350 5368709120\nhmat 1 0 140 10737418240\nhmat 1 1 80 21474836480\n"
    "hmat 1 2 350 5368709120\nhmat 1 3 250 8589934592\n";

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

struct Fixture {
  tm_layout layout{};
  tm_options options{};
  tm_model model{};
  tm_vcpu vcpu{};
  explicit Fixture(bool charging) {
    char err[256];
    tm_layout_parse(kLayout, &layout, err, sizeof err);
    tm_options_default(&options);
    tm_model_init(&model, &layout, &options, err, sizeof err);
    tm_vcpu_init(&vcpu, &model, 0);
    if (charging) {
      for (int n = 0; n < 4; ++n) tm_calibrate_node(&model, n, 200, 100);
      tm_start_charging(&model, 0);
    }
  }
  ~Fixture() { tm_vcpu_free(&vcpu); }
};

void BM_Hit(benchmark::State& state) {
  Fixture f(true);
  uint64_t phys = 0x1000;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tm_access(&f.model, &f.vcpu, phys, monotonic_ns));
    phys ^= 8;  // the same line
  }
}
BENCHMARK(BM_Hit);

// Random lines over 256 MiB of node 2: every access misses the 1 MiB cache.
void miss_loop(benchmark::State& state, bool charging) {
  Fixture f(charging);
  uint64_t x = 0x9e3779b97f4a7c15u;
  for (auto _ : state) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t phys = 0x100000000u + ((x >> 20) % (256u << 20) & ~uint64_t{63});
    benchmark::DoNotOptimize(tm_access(&f.model, &f.vcpu, phys, monotonic_ns));
  }
  f.vcpu.debt_ns = 0;  // nothing is paid here: only the model's own work is timed
}
void BM_MissCounted(benchmark::State& state) {
  miss_loop(state, false);
}
void BM_MissCharged(benchmark::State& state) {
  miss_loop(state, true);
}
BENCHMARK(BM_MissCounted);
BENCHMARK(BM_MissCharged);

}  // namespace

BENCHMARK_MAIN();
