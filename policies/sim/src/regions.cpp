#include "regions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tier::sim::detail {

std::vector<policy::Region> build_regions(const Trace& trace, std::size_t workload,
                                          const PageModel& model, const heat::HeatMap& heat,
                                          const Activity& activity, const RegionOptions& options,
                                          std::map<unsigned, std::uint64_t>& resident_bytes) {
  const TraceWorkload& w = trace.workloads[workload];
  const std::uint64_t page_bytes = trace.page_bytes;
  const std::uint64_t granule = heat.granule_bytes();
  const double page_share = static_cast<double>(page_bytes) / static_cast<double>(granule);
  const std::vector<heat::HeatRange> scored = heat.ranges_above(0.0);  // by address

  std::vector<policy::Region> regions;
  std::vector<std::uint64_t> resident;  // by node id; a map lookup per page costs too much
  std::vector<double> accesses;         // parallel to regions, rounded at the end
  bool scored_region = false;           // the open region holds scored granules
  // A page joins the open region while its heat is within band_ratio of the
  // region's mean heat per page (DAMON-style merging with hysteresis: noise
  // around a fixed threshold does not split a uniformly hot range).
  const auto similar = [&](const policy::Region& r, double page_heat) {
    if (options.band_ratio <= 1) return true;
    const double mean = r.heat / static_cast<double>((r.end - r.start) / page_bytes);
    return page_heat <= mean * options.band_ratio && page_heat * options.band_ratio >= mean;
  };
  bool open = false;       // the last region may still grow
  std::uint64_t page = 0;  // workload page index
  const std::uint64_t allocated = model.allocated(workload);
  for (const Mapping& m : w.mappings) {
    open = false;  // regions never span mappings
    auto run = std::lower_bound(
        scored.begin(), scored.end(), m.start,
        [](const heat::HeatRange& r, std::uint64_t addr) { return r.end <= addr; });
    std::uint64_t cached_granule = ~std::uint64_t{0};
    double cached_heat = 0;
    for (std::uint64_t i = 0; i < m.pages && page < allocated; ++i, ++page) {
      const std::uint64_t addr = m.start + i * page_bytes;
      while (run != scored.end() && run->end <= addr) ++run;
      double page_heat = 0;
      bool page_scored = false;
      if (run != scored.end() && run->start <= addr) {
        const std::uint64_t g = addr / granule;
        if (g != cached_granule) {
          cached_granule = g;
          cached_heat = heat.score_at(addr) * std::min(1.0, page_share);
        }
        page_heat = cached_heat;
        page_scored = true;
      }
      const std::uint64_t g = model.offset(workload) + page;
      const int node = model.node(g);
      const auto n = static_cast<std::size_t>(node);
      if (n >= resident.size()) resident.resize(n + 1, 0);
      resident[n] += page_bytes;
      if (!page_scored && !options.cold_regions) {
        open = false;
        continue;
      }
      const double weight = activity.epoch_weight[g];
      const std::int32_t last = activity.last_epoch[g];
      policy::Region* r = open ? &regions.back() : nullptr;
      if (r == nullptr || r->end != addr || r->node != node || scored_region != page_scored ||
          !similar(*r, page_heat)) {
        policy::Region fresh;
        fresh.pid = static_cast<pid_t>(w.pid);
        fresh.start = addr;
        fresh.end = addr;
        fresh.node = node;
        regions.push_back(fresh);
        accesses.push_back(0);
        r = &regions.back();
        scored_region = page_scored;
        open = true;
      }
      r->end = addr + page_bytes;
      r->heat += page_heat;
      accesses.back() += weight;
      if (last >= 0) {
        r->last_access_s =
            std::max(r->last_access_s, static_cast<double>(last + 1) * options.epoch_s);
      }
    }
  }
  for (std::size_t n = 0; n < resident.size(); ++n) {
    if (resident[n] > 0) resident_bytes[static_cast<unsigned>(n)] += resident[n];
  }
  for (std::size_t i = 0; i < regions.size(); ++i) {
    regions[i].accesses = static_cast<std::uint64_t>(std::llround(accesses[i]));
  }
  return regions;
}

}  // namespace tier::sim::detail
