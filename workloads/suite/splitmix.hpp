// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", 2014): one add and one 64-bit mix per value, a period of
// 2^64, one word of state, so each worker of a suite program keeps its own
// stream in a register. The mix alone is a fixed bijective hash, used for
// content that can be checked without a copy (tier-gups' table) and for
// stream starts (tier-graph's keyed streams).
#pragma once

#include <cstdint>

namespace tier_workloads {

inline constexpr std::uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ull;

/// SplitMix64's output function: a bijective 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The generator: next() is mix64 of a counter stepped by the golden gamma.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t state) : state_(state) {}
  std::uint64_t next() { return mix64(state_ += kSplitMixGamma); }
  /// Uniform in [0, 1) with 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace tier_workloads
