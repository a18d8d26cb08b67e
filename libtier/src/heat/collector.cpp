// The heat collection loop behind `tierctl heat` (contract in collector.hpp).
#include "tier/heat/collector.hpp"

#include <algorithm>
#include <set>
#include <thread>

#include "kernel_activity.hpp"
#include "node_resolver.hpp"
#include "tier/heat/empty_reason.hpp"
#include "tier/heat/selection.hpp"
#include "tier/memory/residency.hpp"

namespace tier::heat {

namespace {

using Clock = std::chrono::steady_clock;

// One running source and what it has gathered.
struct Run {
  SourceRun report;
  std::unique_ptr<HeatSource> source;
  HeatMap map;
  bool active = false;
};

// The process's mappings HeatMap ranks cold memory within, and their size.
std::vector<AddressRange> tracked_ranges(const SysRoot& root, int pid) {
  std::vector<AddressRange> ranges;
  for (const Mapping& m : placeable_mappings(root, pid)) ranges.push_back({m.start, m.end});
  return ranges;
}

std::uint64_t total_bytes(const std::vector<AddressRange>& ranges) {
  std::uint64_t sum = 0;
  for (const auto& r : ranges) sum += r.end - r.start;
  return sum;
}

int cpu_node_of(const std::vector<int>& cpu_node, std::int32_t cpu) {
  if (cpu < 0 || static_cast<std::size_t>(cpu) >= cpu_node.size()) return -1;
  return cpu_node[static_cast<std::size_t>(cpu)];
}

// 2 MiB blocks holding any scored granule of `map`.
std::set<std::uint64_t> scored_blocks(const HeatMap& map, std::uint64_t block) {
  std::set<std::uint64_t> out;
  for (const auto& r : map.ranges_above(0)) {
    for (std::uint64_t b = r.start / block; b * block < r.end; ++b) out.insert(b);
  }
  return out;
}

Agreement agreement(const Run& primary, const Run& other) {
  Agreement a;
  a.primary = primary.report.name;
  a.other = other.report.name;
  const auto p = scored_blocks(primary.map, a.block_bytes);
  const auto o = scored_blocks(other.map, a.block_bytes);
  for (auto b : p) a.common_blocks += o.count(b);
  a.primary_blocks = p.size();
  a.other_blocks = o.size();
  const auto union_blocks = a.primary_blocks + a.other_blocks - a.common_blocks;
  auto ratio = [](std::uint64_t n, std::uint64_t d) {
    return d == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>(d);
  };
  a.jaccard = ratio(a.common_blocks, union_blocks);
  a.primary_covered = ratio(a.common_blocks, a.primary_blocks);
  a.other_covered = ratio(a.common_blocks, a.other_blocks);
  return a;
}

// Cuts each hot range where the node of its pages changes (one move_pages
// query per 4 KiB page, or per granule when the ranges are too large to
// query page by page) and spreads the range's score over the pieces.
std::vector<HotRange> split_by_node(const std::vector<HeatRange>& ranges, NodeResolver& resolver,
                                    int pid, std::uint64_t granule) {
  constexpr std::uint64_t kMaxQueries = std::uint64_t{1} << 20;
  std::uint64_t total = 0;
  for (const auto& r : ranges) total += (r.end - r.start) / 4096;
  const std::uint64_t step = total <= kMaxQueries ? 4096 : std::max<std::uint64_t>(granule, 4096);
  std::vector<HotRange> out;
  for (const auto& r : ranges) {
    std::vector<std::uint64_t> addresses;
    for (std::uint64_t a = r.start; a < r.end; a += step) addresses.push_back(a);
    auto status = resolver.query(pid, addresses);
    status.resize(addresses.size(), -1);  // query failed (process gone): nodes unknown
    const double per_byte = r.score / static_cast<double>(r.end - r.start);
    std::size_t i = 0;
    while (i < addresses.size()) {
      const int node = std::max(status[i], -1);
      std::size_t j = i + 1;
      while (j < addresses.size() && std::max(status[j], -1) == node) ++j;
      const std::uint64_t start = addresses[i];
      const std::uint64_t end = j < addresses.size() ? addresses[j] : r.end;
      out.push_back({start, end, node, per_byte * static_cast<double>(end - start)});
      i = j;
    }
  }
  return out;
}

}  // namespace

std::vector<int> cpu_nodes(const Topology& topology) {
  std::vector<int> out;
  for (const auto& node : topology.nodes()) {
    for (unsigned cpu : node.cpus.ids()) {
      if (cpu >= out.size()) out.resize(cpu + 1, -1);
      out[cpu] = static_cast<int>(node.id);
    }
  }
  return out;
}

HeatReport collect_heat(const SysRoot& root, const Topology& topology, MemorySyscalls& syscalls,
                        int pid, const CollectOptions& options) {
  if (options.sources.empty()) throw SourceError("no heat source chosen");
  SourceOptions source_options = options.source;
  if (source_options.cpu_node.empty()) source_options.cpu_node = cpu_nodes(topology);
  if (source_options.root == nullptr) source_options.root = &root;

  HeatReport report;
  report.pid = pid;
  const auto ranges = tracked_ranges(root, pid);
  report.tracked_bytes = total_bytes(ranges);
  HeatMapConfig config;
  config.decay = options.decay;
  config.forget_below = 1e-6;
  config.tracked_bytes = report.tracked_bytes;

  std::vector<Run> runs;
  for (const auto& name : options.sources) {
    auto source =
        options.factory ? options.factory(name, source_options) : make_source(name, source_options);
    Run run{{}, std::move(source), HeatMap(config), false};
    run.report.name = name;
    run.map.set_tracked_ranges(ranges);
    try {
      run.source->start({pid});
      run.active = true;
    } catch (const SourceError& e) {
      if (runs.empty()) throw;  // the primary must run
      run.report.error = e.what();
    }
    runs.push_back(std::move(run));
  }

  std::optional<KernelActivityWatch> kernel;
  if (options.kernel_activity) kernel.emplace(pid, source_options.cpu_node);
  NodeResolver resolver(syscalls);
  std::map<int, double> node_score;
  std::vector<AccessSample> samples;
  const std::optional<std::uint64_t> cpu_before = process_cpu_ns(root, pid);
  const auto begin = Clock::now();
  const auto deadline = begin + options.duration;
  auto next_epoch = begin + options.interval;
  auto cancelled = [&] { return options.cancel != nullptr && options.cancel->load(); };

  // One epoch: drain every source, credit its map; the primary also feeds
  // the per-node heat and the cross-NUMA matrix.
  auto poll_all = [&] {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Run& run = runs[i];
      if (!run.active) continue;
      samples.clear();
      PollResult result = run.source->poll(samples);
      if (i == 0 && options.on_epoch) options.on_epoch(samples, report.epochs);
      if (i == 0) report.unresolved_nodes += resolver.resolve(pid, samples);
      for (const auto& s : samples) {
        run.map.add(s.addr, s.length, s.weight);
        ++run.report.kinds[to_string(s.kind)];
        if (i != 0) continue;
        if (s.node >= 0) node_score[s.node] += s.weight;
        const int cpu_node = cpu_node_of(source_options.cpu_node, s.cpu);
        if (cpu_node >= 0 && s.node >= 0) {
          report.cross_numa.add(cpu_node, s.node, s.weight);
        } else {
          report.cross_numa.add_unresolved(1);
        }
      }
      if (!result.active) {
        run.active = false;
        run.report.stopped_reason = result.stopped_reason;
        if (i == 0) report.stopped_reason = result.stopped_reason;
      }
    }
  };

  while (runs[0].active && !cancelled() && Clock::now() < deadline) {
    // Sleep in short slices so Ctrl-C and the deadline are honoured promptly.
    const auto wake = std::min(next_epoch, deadline);
    while (Clock::now() < wake && !cancelled()) {
      std::this_thread::sleep_for(
          std::min<Clock::duration>(wake - Clock::now(), std::chrono::milliseconds(50)));
    }
    if (Clock::now() < next_epoch && !cancelled() && Clock::now() < deadline) continue;
    poll_all();
    if (Clock::now() >= next_epoch) {
      for (auto& run : runs) run.map.end_epoch();
      for (auto& [node, score] : node_score) score *= options.decay;
      ++report.epochs;
      next_epoch += options.interval;
    }
  }
  if (runs[0].active) poll_all();  // what arrived since the last epoch
  if (cancelled() && report.stopped_reason.empty()) report.stopped_reason = "interrupted";
  for (auto& run : runs) {
    run.source->stop();
    run.report.counters = run.source->counters();
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  // A thread that exited took its time with it: a smaller sum says nothing.
  if (const auto cpu_after = process_cpu_ns(root, pid);
      cpu_before && cpu_after && *cpu_after >= *cpu_before) {
    report.cpu_ns = *cpu_after - *cpu_before;
  }
  if (kernel) report.kernel = kernel->finish();

  const HeatMap& map = runs[0].map;
  report.granule_bytes = map.granule_bytes();
  report.heatmap_bytes = map.memory_bytes();
  auto hot = options.top > 0 ? map.hottest(options.top) : map.ranges_above(0);
  std::sort(hot.begin(), hot.end(),
            [](const HeatRange& a, const HeatRange& b) { return a.density > b.density; });
  report.hot = split_by_node(hot, resolver, pid, map.granule_bytes());
  for (const auto& [node, score] : node_score) report.per_node.push_back({node, score});
  if (runs.size() > 1 && runs[1].report.error.empty())
    report.agreement = agreement(runs[0], runs[1]);
  for (auto& run : runs) report.sources.push_back(std::move(run.report));
  return report;
}

}  // namespace tier::heat
