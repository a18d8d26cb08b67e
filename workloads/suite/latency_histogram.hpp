// Request latencies in a fixed log-linear histogram (HdrHistogram's idea,
// 16 sub-buckets per power of two: any recorded value is reported within
// 1/16 = 6.25 % above it), so a worker records a request in a few
// instructions with no allocation, and workers' histograms merge by adding.
#pragma once

#include <array>
#include <cstdint>

namespace tier_workloads {

class LatencyHistogram {
 public:
  void record(std::uint64_t ns);
  void merge(const LatencyHistogram& other);
  void clear() { *this = LatencyHistogram(); }
  std::uint64_t count() const { return count_; }
  /// The value at quantile q (0 < q <= 1) in ns: the upper bound of the
  /// bucket holding the ceil(q x count)-th smallest value; 0 when empty.
  std::uint64_t quantile_ns(double q) const;
  std::uint64_t max_ns() const { return max_; }

  /// The bucket of `ns` and the largest value that bucket holds (public for
  /// the unit tests).
  static unsigned bucket_of(std::uint64_t ns);
  static std::uint64_t bucket_upper(unsigned bucket);

 private:
  static constexpr unsigned kSubBits = 4;  // 16 sub-buckets per power of two
  static constexpr unsigned kBuckets = (64 - kSubBits + 1) << kSubBits;
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0, max_ = 0;
};

}  // namespace tier_workloads
