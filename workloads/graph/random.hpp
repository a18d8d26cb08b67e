// The counter-based randomness of tier-graph: every random choice (an edge's
// quadrants, the label permutation, a worker's BFS roots) comes from a
// SplitMix64 stream (../suite/splitmix.hpp) whose start is a hash of the run's --seed and what is
// drawn, so the graph is the same for a seed whatever the thread count (the
// generator's threads each take a range of edge indices).
#pragma once

#include <cstdint>

#include "splitmix.hpp"

namespace tier_workloads::graph {

/// A stream for `purpose` (an edge index, a worker) under `seed`: streams
/// start at hashed points of SplitMix64's 2^64 cycle, so they do not overlap
/// in the few draws each takes.
class Stream {
 public:
  Stream(std::uint64_t seed, std::uint64_t domain, std::uint64_t purpose)
      : Stream(stream_key(seed, domain), purpose) {}
  /// The same stream from the key of (seed, domain), for a caller drawing
  /// millions of streams of one domain.
  Stream(std::uint64_t key, std::uint64_t purpose) : state_(mix64(key + purpose)) {}
  static constexpr std::uint64_t stream_key(std::uint64_t seed, std::uint64_t domain) {
    return mix64(seed ^ domain);
  }
  std::uint64_t next() { return mix64(state_ += kSplitMixGamma); }
  /// Uniform in [0, n) (by remainder: the bias, n / 2^64, is nothing for
  /// vertex counts up to 2^26).
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

// The domains keep the streams of different choices apart for one seed.
inline constexpr std::uint64_t kEdgeDomain = 0x45444745;  // "EDGE"
inline constexpr std::uint64_t kPermDomain = 0x5045524d;  // "PERM"
inline constexpr std::uint64_t kRootDomain = 0x524f4f54;  // "ROOT"

}  // namespace tier_workloads::graph
