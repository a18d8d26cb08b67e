#include "scoring.hpp"

#include <algorithm>

namespace tier::sim::detail {

Score score_placement(const PageModel& model, const Machine& machine, const Distribution& truth,
                      const std::vector<unsigned>& cpu_node) {
  double total = 0, fast = 0, placed = 0, latency = 0;
  for (const PageRun& run : truth.runs) {
    total += run.p * static_cast<double>(run.count);
    if (run.p <= 0) continue;
    const std::vector<double>& row = machine.latency_ns[cpu_node[run.workload]];
    const std::uint64_t last = std::min(run.first + run.count, model.allocated(run.workload));
    std::uint64_t fast_pages = 0;
    double lat_sum = 0;
    for (std::uint64_t p = run.first; p < last; ++p) {
      const int node = model.node(model.offset(run.workload) + p);
      if (model.fast(node)) ++fast_pages;
      lat_sum += row[static_cast<std::size_t>(node)];
    }
    if (last > run.first) placed += run.p * static_cast<double>(last - run.first);
    fast += run.p * static_cast<double>(fast_pages);
    latency += run.p * lat_sum;
  }
  Score score;
  score.scored = total > 0;
  if (total > 0) score.fast_share = fast / total;
  if (placed > 0) score.mean_latency_ns = latency / placed;
  return score;
}

double oracle_share(const Distribution& truth, std::uint64_t fast_pages) {
  std::vector<std::pair<double, std::uint64_t>> by_p;  // (p, pages)
  by_p.reserve(truth.runs.size());
  double total = 0;
  for (const PageRun& run : truth.runs) {
    by_p.emplace_back(run.p, run.count);
    total += run.p * static_cast<double>(run.count);
  }
  if (total <= 0) return 0;
  std::sort(by_p.begin(), by_p.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  double mass = 0;
  for (const auto& [p, count] : by_p) {
    if (fast_pages == 0) break;
    const std::uint64_t take = std::min(count, fast_pages);
    mass += p * static_cast<double>(take);
    fast_pages -= take;
  }
  return mass / total;
}

}  // namespace tier::sim::detail
