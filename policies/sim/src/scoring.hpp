// Scoring a placement against a true access distribution: the fast-tier
// share, the oracle's share, the modelled mean latency.
#pragma once

#include <cstdint>
#include <vector>

#include "page_model.hpp"
#include "tier/sim/machine.hpp"
#include "tier/sim/trace.hpp"

namespace tier::sim::detail {

struct Score {
  double fast_share = 0;       // of the distribution's total
  double mean_latency_ns = 0;  // over the allocated pages' mass
  bool scored = false;         // the distribution had any mass
};

/// cpu_node: per workload. Pages of the distribution not allocated yet count
/// as not fast and are left out of the latency mean.
Score score_placement(const PageModel& model, const Machine& machine, const Distribution& truth,
                      const std::vector<unsigned>& cpu_node);

/// The mass of the `fast_pages` most probable pages, over the total.
double oracle_share(const Distribution& truth, std::uint64_t fast_pages);

}  // namespace tier::sim::detail
