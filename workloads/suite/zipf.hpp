// Zipf over ranks [0, n) (Gray et al., "Quickly generating billion-record
// synthetic databases", as in YCSB): O(1) per draw after an O(n) setup.
// Shared by the workloads that draw skewed keys or pages (hotset, tier-kv).
#pragma once

#include <cstddef>

namespace tier_workloads {

class Zipf {
 public:
  // theta in (0, 1); theta <= 0 leaves the generator unset (a uniform user
  // never draws from it).
  Zipf(std::size_t n, double theta);
  std::size_t draw(double u) const;  // u uniform in [0, 1): a rank, 0 the most likely

 private:
  std::size_t n_;
  double theta_, zetan_ = 0, alpha_ = 0, eta_ = 0, half_pow_theta_ = 0;
};

}  // namespace tier_workloads
