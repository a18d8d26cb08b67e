// Residency scan rate: maps and touches 1 GiB in this process, then scans
// its own pid (smaps + batched move_pages queries). Reports GiB/s and pages/s
// of resident memory scanned. Target: >= 1 GiB/s on the build machine.
#include <sys/mman.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <cstring>

#include "tier/memory/residency.hpp"

namespace {

constexpr std::size_t kBytes = 1ull << 30;

void* touched_buffer(bool huge) {
  static void* buffers[2] = {nullptr, nullptr};
  void*& buffer = buffers[huge ? 1 : 0];
  if (buffer == nullptr) {
    buffer = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buffer == MAP_FAILED) std::abort();
    madvise(buffer, kBytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::memset(buffer, 1, kBytes);
  }
  return buffer;
}

void scan(benchmark::State& state, bool huge) {
  benchmark::DoNotOptimize(touched_buffer(huge));
  tier::SysRoot root("/");
  tier::ResidencyOptions options;
  options.batch_pages = static_cast<std::size_t>(state.range(0));
  std::uint64_t resident = 0;
  std::uint64_t pages = 0;
  for (auto _ : state) {
    auto report = tier::scan_residency(root, tier::real_memory_syscalls(), getpid(), options);
    resident += report.resident_bytes();
    pages += report.queried_pages;
    benchmark::DoNotOptimize(report);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(resident));
  state.counters["GiB/s"] =
      benchmark::Counter(static_cast<double>(resident) / (1ull << 30), benchmark::Counter::kIsRate);
  state.counters["pages/s"] =
      benchmark::Counter(static_cast<double>(pages), benchmark::Counter::kIsRate);
  state.counters["queried_pages"] =
      static_cast<double>(pages) / static_cast<double>(state.iterations());
}

void BM_ResidencyScan4k(benchmark::State& state) {
  scan(state, false);
}
void BM_ResidencyScanThp(benchmark::State& state) {
  scan(state, true);
}

}  // namespace

BENCHMARK(BM_ResidencyScan4k)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ResidencyScanThp)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
