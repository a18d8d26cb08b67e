// Idle-latency probe: a dependent pointer chase over one random cycle of
// cache lines, so neither the prefetchers nor out-of-order execution can
// overlap two loads.
#include <time.h>

#include <random>
#include <stdexcept>
#include <utility>

#include "internal.hpp"
#include "tier/bench/bench.hpp"

namespace tier::bench {

std::vector<std::uint32_t> cyclic_permutation(std::size_t n, std::uint64_t seed) {
  if (n > UINT32_MAX) throw std::length_error("cyclic_permutation: too many slots");
  std::vector<std::uint32_t> next(n);
  for (std::size_t i = 0; i < n; ++i) next[i] = static_cast<std::uint32_t>(i);
  // Sattolo: swapping only with a strictly lower index yields a single cycle
  // (a plain Fisher-Yates shuffle would leave short cycles that fit in cache).
  std::mt19937_64 rng(seed);
  for (std::size_t i = n; i > 1; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 2);
    std::swap(next[i - 1], next[pick(rng)]);
  }
  return next;
}

namespace detail {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void build_chase(NodeBuffer& buffer, std::uint64_t seed) {
  const std::size_t lines = buffer.size() / kLineBytes;
  const auto next = cyclic_permutation(lines, seed);
  std::byte* base = buffer.data();
  // Written in slot order, so building streams through memory once.
  for (std::size_t i = 0; i < lines; ++i) {
    *reinterpret_cast<std::byte**>(base + i * kLineBytes) = base + next[i] * kLineBytes;
  }
}

double chase_ns(const NodeBuffer& buffer, std::size_t loads) {
  std::byte* p = buffer.data();
  const std::size_t rounds = (loads + 7) / 8;
  // Thread CPU time, not wall time: on a shared machine a preempted chaser
  // would otherwise count other processes' time slices as memory latency.
  // That clock can be as coarse as the scheduler tick: a guest whose TSC the
  // kernel marked unstable (QEMU TCG guests, some VMs) advances it in steps
  // of up to a tick, and a 10 ms pass then read 0 ns (tests/vm bench, kernel
  // 6.12.95). So the chase goes on, whole passes at a time, until the clock
  // shows kMinChaseSeconds: a 4 ms step is then at most 8 % of the figure.
  const double start = thread_cpu_seconds();
  double seconds = 0;
  std::size_t done = 0;
  do {
    for (std::size_t i = 0; i < rounds; ++i) {
      p = *reinterpret_cast<std::byte**>(p);
      p = *reinterpret_cast<std::byte**>(p);
      p = *reinterpret_cast<std::byte**>(p);
      p = *reinterpret_cast<std::byte**>(p);
      p = *reinterpret_cast<std::byte**>(p);
      p = *reinterpret_cast<std::byte**>(p);
      p = *reinterpret_cast<std::byte**>(p);
      p = *reinterpret_cast<std::byte**>(p);
    }
    done += rounds * 8;
    seconds = thread_cpu_seconds() - start;
  } while (seconds < kMinChaseSeconds && done < kMaxChaseLoads);
  // Keeps the chain alive without a store in the loop.
  asm volatile("" : : "r"(p) : "memory");
  return seconds * 1e9 / static_cast<double>(done);
}

}  // namespace detail
}  // namespace tier::bench
