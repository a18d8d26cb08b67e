// The orders the `balanced` policy ranks regions in (balanced_policy.cpp):
// the class rank, the key buckets of its target-set histogram, the
// best-first order of target and promotion keys, the order fast-tier data
// leaves in, and the lazy sort that orders only as far as a tick walks.
// Every order breaks ties by candidate index, so plans are deterministic.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tier/protocol/workload_class.hpp"

namespace tier::policy::balanced {

/// Offline data leaves the fast tier first (0), online last (2), the
/// default class between (1).
int class_rank(WorkloadClass workload_class);

/// The ranking key's top 16 bits: positive doubles order as their bit
/// patterns, so this buckets keys in sixteenths of a power of two, in order.
inline std::uint32_t bucket_of(double key) {
  return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(key) >> 48);
}
inline constexpr std::size_t kBuckets = 1 << 15;  // the sign bit is 0

/// (key, candidate index), best first; ties by index keep plans deterministic.
using Ranked = std::pair<double, std::uint32_t>;
struct Better {
  bool operator()(const Ranked& a, const Ranked& b) const {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }
};

/// The order fast-tier data leaves in: outside the target set first, offline
/// before default before online, low priority first, coldest first.
/// Packed into one integer, most significant first: in the target set (1
/// bit), class rank (2), priority (16, clamped and biased), density (the top
/// 45 bits of the double: sign 0, exponent, 33 bits of mantissa — densities
/// closer than 1e-10 relative tie and fall to the index).
struct VictimKey {
  std::uint64_t order;
  std::uint32_t index;
};
VictimKey victim_key(bool in_target, int class_rank, int priority, double density,
                     std::uint32_t index);
struct LeavesFirst {
  bool operator()(const VictimKey& a, const VictimKey& b) const {
    return a.order < b.order || (a.order == b.order && a.index < b.index);
  }
};

/// Orders `keys` lazily: the first `want` exactly (nth_element + sort), the
/// rest a block at a time, only if a caller walks past them. A tick over 1 M
/// regions mostly needs the first few thousand.
template <typename Key, typename Less>
class LazyOrder {
 public:
  void reset(std::size_t want) {
    want_ = std::max<std::size_t>(want, 64);
    sorted_ = 0;
  }
  std::vector<Key>& keys() { return keys_; }
  std::size_t size() const { return keys_.size(); }
  const Key& operator[](std::size_t i) {
    while (i >= sorted_) extend();
    return keys_[i];
  }

 private:
  void extend() {
    const std::size_t next = std::min(keys_.size(), sorted_ + want_);
    const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(sorted_);
    const auto middle = keys_.begin() + static_cast<std::ptrdiff_t>(next);
    if (next < keys_.size()) std::nth_element(first, middle, keys_.end(), Less{});
    std::sort(first, middle, Less{});
    sorted_ = next;
    want_ *= 2;  // walking far: larger blocks, O(n log n) overall at worst
  }
  std::vector<Key> keys_;
  std::size_t sorted_ = 0, want_ = 64;
};

}  // namespace tier::policy::balanced
