// Loaded latency (Intel MLC style): one thread chases pointers while the other
// threads read the same target node, pausing `delay` spin iterations after
// every 4 KiB; sweeping the delay from "no load" down to 0 traces latency as a
// function of the bandwidth already in use.
#include <algorithm>
#include <atomic>
#include <thread>

#include "internal.hpp"
#include "loaded.hpp"

namespace tier::bench::detail {

namespace {

constexpr std::size_t kBlock = 4096;

void spin(std::uint64_t iterations) {
  for (std::uint64_t i = 0; i < iterations; ++i) asm volatile("" : : : "memory");
}

struct alignas(64) Counter {
  std::atomic<std::uint64_t> bytes{0};
};

}  // namespace

const std::vector<std::optional<std::uint64_t>>& loaded_delays() {
  static const std::vector<std::optional<std::uint64_t>> delays{
      std::nullopt, 20000, 5000, 2000, 1000, 500, 200, 50, 0};
  return delays;
}

std::vector<LoadedPoint> loaded_sweep(const NodeBuffer& chase, const NodeBuffer& load,
                                      const CpuList& cpus, int threads, std::size_t loads) {
  const std::size_t loaders = threads > 1 ? static_cast<std::size_t>(threads - 1) : 0;
  std::vector<LoadedPoint> points;
  for (const auto& delay : loaded_delays()) {
    if (delay && loaders == 0) break;  // nothing to load the target with
    LoadedPoint point;
    point.delay = delay;
    std::atomic<bool> stop{false};
    std::vector<Counter> counters(delay ? loaders : 0);
    std::vector<std::jthread> workers;
    const std::size_t region = load.size() / std::max<std::size_t>(loaders, 1) / kBlock * kBlock;
    for (std::size_t t = 0; t < counters.size(); ++t) {
      workers.emplace_back([&, t] {
        // The chaser owns cpus[0]; loaders take the others round-robin.
        const std::size_t others = cpus.size() > 1 ? cpus.size() - 1 : 1;
        pin_to_cpu(cpus.ids()[cpus.size() > 1 ? 1 + t % others : 0]);
        const std::byte* begin = load.data() + t * region;
        std::uint64_t sink = 0;
        std::size_t offset = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          sink += read_kernel(begin + offset, kBlock);
          offset = offset + kBlock >= region ? 0 : offset + kBlock;
          counters[t].bytes.fetch_add(kBlock, std::memory_order_relaxed);
          spin(*delay);
        }
        asm volatile("" : : "r"(sink) : "memory");
      });
    }
    std::thread chaser([&] {
      pin_to_cpu(cpus.ids()[0]);
      // Let the loaders reach their steady state before sampling.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::uint64_t before = 0;
      for (auto& c : counters) before += c.bytes.load(std::memory_order_relaxed);
      const auto start = Clock::now();
      point.latency_ns = chase_ns(chase, loads);
      const double seconds = seconds_since(start);
      std::uint64_t after = 0;
      for (auto& c : counters) after += c.bytes.load(std::memory_order_relaxed);
      point.bandwidth_mbps = static_cast<double>(after - before) / seconds / 1e6;
    });
    chaser.join();
    stop = true;
    workers.clear();
    points.push_back(point);
  }
  return points;
}

}  // namespace tier::bench::detail
