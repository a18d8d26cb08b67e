// The regions a policy sees for one workload: the HeatMap's scored granules
// and (optionally) the unscored allocated memory, cut where the page's node
// changes, where scored meets unscored memory, where a page's heat leaves
// band_ratio of the region's mean heat per page, and at mapping edges.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "page_model.hpp"
#include "tier/heat/heatmap.hpp"
#include "tier/policy/policy.hpp"

namespace tier::sim::detail {

/// Per-page activity the HeatMap does not keep: this epoch's sampled
/// accesses and the last epoch with a sample (indexed by global page).
struct Activity {
  std::vector<double> epoch_weight;
  std::vector<std::int32_t> last_epoch;  // -1 never
  std::vector<std::uint64_t> touched;    // pages with epoch_weight > 0, to reset
};

struct RegionOptions {
  double epoch_s = 1;
  double band_ratio = 2;
  bool cold_regions = true;
};

std::vector<policy::Region> build_regions(const Trace& trace, std::size_t workload,
                                          const PageModel& model, const heat::HeatMap& heat,
                                          const Activity& activity, const RegionOptions& options,
                                          std::map<unsigned, std::uint64_t>& resident_bytes);

}  // namespace tier::sim::detail
