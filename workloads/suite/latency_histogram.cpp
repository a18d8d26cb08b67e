#include "latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace tier_workloads {

// Values below 16 have a bucket each; above, the bucket is the power of two
// (its top bit) and the next kSubBits bits under it.
unsigned LatencyHistogram::bucket_of(std::uint64_t ns) {
  constexpr std::uint64_t kSub = 1u << kSubBits;
  if (ns < kSub) return static_cast<unsigned>(ns);
  const unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(ns));  // >= kSubBits
  const unsigned shift = top - kSubBits;
  const auto sub = static_cast<unsigned>((ns >> shift) & (kSub - 1));
  return ((shift + 1) << kSubBits) + sub;
}

std::uint64_t LatencyHistogram::bucket_upper(unsigned bucket) {
  constexpr unsigned kSub = 1u << kSubBits;
  if (bucket < kSub) return bucket;
  const unsigned shift = (bucket >> kSubBits) - 1;
  const std::uint64_t sub = bucket & (kSub - 1);
  const std::uint64_t lower = (kSub + sub) << shift;
  return lower + ((std::uint64_t{1} << shift) - 1);
}

void LatencyHistogram::record(std::uint64_t ns) {
  ++counts_[bucket_of(ns)];
  ++count_;
  max_ = std::max(max_, ns);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (unsigned i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

std::uint64_t LatencyHistogram::quantile_ns(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(
      std::max(1.0, std::ceil(std::min(q, 1.0) * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (unsigned i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(bucket_upper(i), max_);
  }
  return max_;
}

}  // namespace tier_workloads
