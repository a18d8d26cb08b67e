// Bandwidth probes: read, write and copy kernels run by threads pinned to the
// initiator's CPUs over a buffer bound to the target node.
#include <algorithm>
#include <barrier>
#include <cstring>
#include <thread>

#include "internal.hpp"
#include "tier/bench/bench.hpp"

namespace tier::bench::detail {

std::uint64_t read_kernel(const std::byte* begin, std::size_t bytes) {
  // Eight independent accumulators keep several loads in flight per cycle.
  const auto* words = reinterpret_cast<const std::uint64_t*>(begin);
  const std::size_t n = bytes / sizeof(std::uint64_t);
  std::uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    a0 += words[i];
    a1 += words[i + 1];
    a2 += words[i + 2];
    a3 += words[i + 3];
    a4 += words[i + 4];
    a5 += words[i + 5];
    a6 += words[i + 6];
    a7 += words[i + 7];
  }
  for (; i < n; ++i) a0 += words[i];
  return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

void write_kernel(std::byte* begin, std::size_t bytes, int value) {
  std::memset(begin, value, bytes);
}

void copy_kernel(std::byte* dst, const std::byte* src, std::size_t bytes) {
  // memcpy, like mbw -t0, so the comparison measures the same instructions.
  std::memcpy(dst, src, bytes);
}

double bandwidth_pass(NodeBuffer& buffer, Kernel kernel, int threads, const CpuList& cpus) {
  const auto count = static_cast<std::size_t>(threads);
  // Copy moves the first half of the buffer into the second half.
  const std::size_t span = kernel == Kernel::copy ? buffer.size() / 2 : buffer.size();
  const std::size_t chunk = span / count / kLineBytes * kLineBytes;
  std::barrier sync(static_cast<std::ptrdiff_t>(count + 1));
  std::vector<std::uint64_t> sinks(count * 8, 0);  // one cache line apart
  // Each worker stamps its own start and end: the unpinned caller may not get
  // a CPU back until the workers are done, so its own clock would be late.
  std::vector<Clock::time_point> starts(count), ends(count);
  std::vector<std::jthread> workers;
  for (std::size_t t = 0; t < count; ++t) {
    workers.emplace_back([&, t] {
      pin_to_cpu(cpus.ids()[t % cpus.size()]);
      std::byte* begin = buffer.data() + t * chunk;
      sync.arrive_and_wait();
      starts[t] = Clock::now();
      switch (kernel) {
        case Kernel::read:
          sinks[t * 8] = read_kernel(begin, chunk);
          break;
        case Kernel::write:
          write_kernel(begin, chunk, static_cast<int>(t + 1));
          break;
        case Kernel::copy:
          copy_kernel(begin + span, begin, chunk);
          break;
      }
      ends[t] = Clock::now();
    });
  }
  sync.arrive_and_wait();
  workers.clear();
  const double seconds =
      std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) -
                                    *std::min_element(starts.begin(), starts.end()))
          .count();
  asm volatile("" : : "r"(sinks.data()) : "memory");
  return static_cast<double>(chunk * count) / seconds / 1e6;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace tier::bench::detail
