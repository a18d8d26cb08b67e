// HeatMap ingest and decay at 64 GiB tracked (simulated addresses), side by
// side with a baseline fed the same samples: a plain
// std::unordered_map<page, double> heat table. Targets (issue 4): ingest
// >= 1 M samples/s on one core, memory <= 0.1% of the tracked bytes.
//
// Each benchmark first feeds the whole sample stream once, so the timed
// batches run against a map at steady state (grown, coarsened), not an empty
// one. A third pair feeds DAMON-style region samples (1000 regions tiling
// the 64 GiB per aggregation). Counters: items_per_second (samples, entries
// or regions), memory_bytes, tracked_bytes, memory_fraction = memory_bytes /
// tracked_bytes, and for the HeatMap granule_bytes. The baseline's memory is
// an estimate from its node and bucket counts (libstdc++: one 32-byte
// allocation per entry plus one pointer per bucket), since it cannot report
// what it holds.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "tier/heat/heatmap.hpp"

namespace {

constexpr std::uint64_t kTracked = std::uint64_t{64} << 30;
constexpr std::uint64_t kBase = 0x7f0000000000;
constexpr std::size_t kStream = std::size_t{4} << 20;  // samples in the shared stream
constexpr std::size_t kBatch = std::size_t{64} << 10;  // samples per timed iteration

enum Spread : int { kUniform = 0, kSkewed = 1 };

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Sample addresses over the 64 GiB: uniform (no locality: the worst case for
/// a table that does not fit in cache), or skewed (90% into a 64 MiB hot set,
/// the rest uniform), fixed seed so both sides see the same stream.
const std::vector<std::uint64_t>& stream(Spread spread) {
  static std::vector<std::uint64_t> streams[2];
  auto& s = streams[spread];
  if (s.empty()) {
    std::uint64_t state = 42;
    s.reserve(kStream);
    for (std::size_t i = 0; i < kStream; ++i) {
      const std::uint64_t r = splitmix64(state);
      const bool hot = spread == kSkewed && r % 10 != 0;
      const std::uint64_t span = hot ? std::uint64_t{64} << 20 : kTracked;
      s.push_back(kBase + splitmix64(state) % span);
    }
  }
  return s;
}

void report_memory(benchmark::State& state, double memory_bytes) {
  state.counters["memory_bytes"] = memory_bytes;
  state.counters["tracked_bytes"] = static_cast<double>(kTracked);
  state.counters["memory_fraction"] = memory_bytes / static_cast<double>(kTracked);
}

tier::heat::HeatMap tracked_heatmap(double decay) {
  tier::heat::HeatMapConfig config;
  config.tracked_bytes = kTracked;
  config.decay = decay;
  tier::heat::HeatMap map(config);
  map.set_tracked_ranges({{kBase, kBase + kTracked}});
  return map;
}

using PageTable = std::unordered_map<std::uint64_t, double>;

double page_table_bytes(const PageTable& table) {
  return static_cast<double>(table.size() * 32 + table.bucket_count() * sizeof(void*));
}

void BM_HeatMapIngest(benchmark::State& state) {
  const auto& samples = stream(static_cast<Spread>(state.range(0)));
  auto map = tracked_heatmap(0.5);
  for (std::uint64_t addr : samples) map.add(addr, 0, 1.0);
  std::size_t next = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kBatch; ++i, next = (next + 1) % samples.size())
      map.add(samples[next], 0, 1.0);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
  report_memory(state, static_cast<double>(map.memory_bytes()));
  state.counters["granule_bytes"] = static_cast<double>(map.granule_bytes());
}

void BM_UnorderedMapIngest(benchmark::State& state) {
  const auto& samples = stream(static_cast<Spread>(state.range(0)));
  PageTable table;
  for (std::uint64_t addr : samples) table[addr >> 12] += 1.0;
  std::size_t next = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kBatch; ++i, next = (next + 1) % samples.size())
      table[samples[next] >> 12] += 1.0;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBatch));
  report_memory(state, page_table_bytes(table));
}

// end_epoch() over a full map. Decay 1 keeps every entry (nothing falls
// under forget_below), so each iteration scans the same number of entries.
void BM_HeatMapEpoch(benchmark::State& state) {
  const auto& samples = stream(kUniform);
  auto map = tracked_heatmap(1.0);
  for (std::uint64_t addr : samples) map.add(addr, 0, 1.0);
  for (auto _ : state) map.end_epoch();
  state.SetItemsProcessed(static_cast<std::int64_t>(
      state.iterations() * static_cast<std::int64_t>(map.scored_granules())));
  report_memory(state, static_cast<double>(map.memory_bytes()));
}

void BM_UnorderedMapEpoch(benchmark::State& state) {
  const auto& samples = stream(kUniform);
  PageTable table;
  for (std::uint64_t addr : samples) table[addr >> 12] += 1.0;
  for (auto _ : state) {
    for (auto it = table.begin(); it != table.end();) {
      it->second *= 1.0;
      it = it->second < 1e-3 ? table.erase(it) : std::next(it);
    }
  }
  state.SetItemsProcessed(
      static_cast<std::int64_t>(state.iterations() * static_cast<std::int64_t>(table.size())));
  report_memory(state, page_table_bytes(table));
}

/// One DAMON aggregation: kRegions page-aligned regions tiling the 64 GiB at
/// random boundaries, each with an access count (nr_accesses) of 0..20.
struct Region {
  std::uint64_t start, length;
  double accesses;
};
constexpr std::size_t kRegions = 1000;

const std::vector<Region>& aggregation() {
  static std::vector<Region> regions;
  if (regions.empty()) {
    std::uint64_t state = 7;
    std::vector<std::uint64_t> cuts{0, kTracked / 4096};
    for (std::size_t i = 1; i < kRegions; ++i) cuts.push_back(splitmix64(state) % cuts[1]);
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
      if (cuts[i + 1] > cuts[i])
        regions.push_back({kBase + cuts[i] * 4096, (cuts[i + 1] - cuts[i]) * 4096,
                           static_cast<double>(splitmix64(state) % 21)});
  }
  return regions;
}

void report_regions(benchmark::State& state, std::size_t regions) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * regions));
  state.counters["GiB_covered/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(kTracked >> 30),
      benchmark::Counter::kIsRate);
}

// DAMON-style region samples: the HeatMap coarsens once up front to the
// resolution at which a region fits the budget, so an aggregation costs about
// one insert per granule; the baseline spreads every region over its pages.
void BM_HeatMapRegions(benchmark::State& state) {
  const auto& regions = aggregation();
  auto map = tracked_heatmap(0.5);
  auto feed = [&] {
    for (const Region& r : regions) map.add(r.start, r.length, r.accesses);
  };
  feed();
  for (auto _ : state) feed();
  report_regions(state, regions.size());
  report_memory(state, static_cast<double>(map.memory_bytes()));
  state.counters["granule_bytes"] = static_cast<double>(map.granule_bytes());
}

void BM_UnorderedMapRegions(benchmark::State& state) {
  const auto& regions = aggregation();
  PageTable table;
  auto feed = [&] {
    for (const Region& r : regions) {
      const double per_page = r.accesses / static_cast<double>(r.length >> 12);
      for (std::uint64_t p = r.start >> 12; p < (r.start + r.length) >> 12; ++p)
        table[p] += per_page;
    }
  };
  feed();
  for (auto _ : state) feed();
  report_regions(state, regions.size());
  report_memory(state, page_table_bytes(table));
}

}  // namespace

BENCHMARK(BM_HeatMapIngest)->Arg(kUniform)->Arg(kSkewed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UnorderedMapIngest)->Arg(kUniform)->Arg(kSkewed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HeatMapEpoch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UnorderedMapEpoch)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HeatMapRegions)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_UnorderedMapRegions)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
