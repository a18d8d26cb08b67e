// The update stream of one tier-gups worker (HeMem's GUPS, a variant of HPCC
// RandomAccess with a hot subset): which word each update picks and what it
// XORs in. The measured run and the verification replay both go through
// apply() with the same Rng and Picker, so the replay applies exactly the
// XORs the run did, and XOR being its own inverse, restores the table.
//
// Ownership: worker t of N owns the words whose index is t (mod N), in the
// hot subset as in the whole table, so no two workers ever touch one word and
// an update is a plain load-xor-store (no atomics, no lost updates). In
// "owned" coordinates j (word t + j*N) the worker's words are 0..owned-1 and
// its share of the hot subset, a cyclic range of words, is the cyclic range
// [hot_first, hot_first + hot_count) mod owned; picking in it is one
// multiply-shift (Lemire) and at most one subtraction, no division.
#pragma once

#include <cstdint>

#include "splitmix.hpp"

namespace tier_workloads::gups {

/// The table's hash and every worker's generator: SplitMix64
/// (../suite/splitmix.hpp), mix64 also being the table's initial content
/// (table.hpp).
using Rng = SplitMix64;

/// Worker `worker`'s stream start for the run's --seed: distinct workers and
/// seeds start far apart in the splitmix64 sequence.
constexpr std::uint64_t stream_seed(std::uint64_t seed, unsigned worker) {
  return mix64(seed ^ 0x6a09e667f3bcc908ull) ^ mix64(worker + 1ull);
}

/// The table and its hot subset, in 64-bit words. Invariants (options.cpp
/// guarantees them): threads <= hot_words <= words, hot_offset < words.
struct Layout {
  std::uint64_t words = 0;
  std::uint64_t hot_words = 0;
  std::uint64_t hot_offset = 0;  // the hot subset's first word in phase 0
  unsigned threads = 1;
  double hot_fraction = 0.9;

  /// The hot subset's first word in `phase`: one hot length further per
  /// phase, wrapping at the table's end (the subset itself wraps too).
  std::uint64_t hot_start(std::uint64_t phase) const;
};

/// Where worker `worker`'s updates go in one phase.
class Picker {
 public:
  Picker(const Layout& layout, unsigned worker, std::uint64_t phase);

  /// Whether draw `r` goes to the hot subset (its low 32 bits against the
  /// fraction; index() uses the high bits).
  bool hot(std::uint64_t r) const { return (r & 0xffffffffull) < threshold_; }

  /// The word draw `r` updates: one of the worker's own words, uniform over
  /// its share of the hot subset or of the whole table.
  std::uint64_t index(std::uint64_t r) const {
    std::uint64_t j = hot(r) ? hot_first_ + scale(r, hot_count_) : scale(r, owned_);
    if (j >= owned_) j -= owned_;
    return first_ + j * stride_;
  }

  std::uint64_t owned() const { return owned_; }
  std::uint64_t hot_count() const { return hot_count_; }

 private:
  /// floor(r * n / 2^64): uniform in [0, n) for uniform r, no division.
  static std::uint64_t scale(std::uint64_t r, std::uint64_t n) {
    __extension__ using wide = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<wide>(r) * n) >> 64);
  }

  std::uint64_t first_, stride_, owned_, hot_first_, hot_count_, threshold_;
};

/// `n` updates of the stream: table[i] ^= r for the next pick i and the next
/// value r. The figure's inner loop: the Rng and Picker are copied into
/// locals so the stores into the table cannot alias them (no reloads), and
/// nothing per update is a call or a division.
inline void apply(std::uint64_t* table, const Picker& picker, Rng& rng, std::uint64_t n) {
  const Picker p = picker;
  Rng r = rng;
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t i = p.index(r.next());
    table[i] ^= r.next();
  }
  rng = r;
}

}  // namespace tier_workloads::gups
