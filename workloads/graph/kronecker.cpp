#include "kronecker.hpp"

#include <algorithm>
#include <thread>
#include <utility>

#include "random.hpp"

namespace tier_workloads::graph {
namespace {

constexpr unsigned kLevelsPerDraw = 4;  // 4^4 = 256 joint outcomes, one byte
constexpr unsigned kThresholdBits = 24;
constexpr std::uint32_t kThresholdOne = 1u << kThresholdBits;

// The joint distribution of `levels` (up to 4) consecutive levels' (row
// bit, column bit) pairs, the product of the initiator's quadrant
// probabilities, drawn with Walker's alias method from one 32-bit uniform:
// its top 8 bits pick an outcome, its low 24 bits keep it or take its
// alias. The reference generator draws two uniforms per level; this is the
// same distribution with an eighth of the random numbers and few
// instructions (the generator is most of a start under emulation).
class AliasTable {
 public:
  explicit AliasTable(unsigned levels) : levels_(levels) {
    const std::uint32_t n = 1u << (2 * levels);
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> threshold(n, kThresholdOne), alias(n);
    const double quadrant[2][2] = {{kInitiatorA, kInitiatorB},
                                   {kInitiatorC, 1.0 - kInitiatorA - kInitiatorB - kInitiatorC}};
    for (std::uint32_t o = 0; o < n; ++o) {
      double p = 1;
      for (unsigned l = 0; l < levels; ++l) p *= quadrant[(o >> (levels + l)) & 1][(o >> l) & 1];
      scaled[o] = p * n;
      alias[o] = o;
    }
    // Vose's construction: pair each under-full outcome with an over-full one.
    std::vector<std::uint32_t> small, large;
    for (std::uint32_t o = 0; o < n; ++o) (scaled[o] < 1 ? small : large).push_back(o);
    while (!small.empty() && !large.empty()) {
      const std::uint32_t s = small.back(), l = large.back();
      small.pop_back();
      threshold[s] = static_cast<std::uint32_t>(scaled[s] * kThresholdOne);
      alias[s] = l;
      scaled[l] -= 1 - scaled[s];
      if (scaled[l] < 1) {
        large.pop_back();
        small.push_back(l);
      }
    }
    // What is left holds 1 up to rounding: always kept. The 256 slots
    // repeat the n outcomes when n < 256, so any top byte is a slot.
    for (std::uint32_t slot = 0; slot < 256; ++slot) {
      const std::uint32_t o = slot % n;
      entry_[slot] = static_cast<std::uint64_t>(threshold[o]) << 32 | alias[o] << 8 | o;
    }
  }

  unsigned levels() const { return levels_; }
  /// An outcome: row bits << levels | column bits.
  std::uint32_t draw(std::uint32_t u) const {
    const std::uint64_t e = entry_[u >> kThresholdBits];
    return (u & (kThresholdOne - 1)) < (e >> 32) ? e & 0xff : (e >> 8) & 0xff;
  }

 private:
  unsigned levels_;
  std::uint64_t entry_[256];  // threshold << 32 | alias << 8 | outcome
};

// The endpoints before the relabelling: the full four-level draws, then
// the remainder of the scale (levels are independent and alike, so their
// order in the label does not matter).
class Drawer {
 public:
  Drawer(unsigned scale, std::uint64_t seed)
      : key_(Stream::stream_key(seed, kEdgeDomain)),
        full_draws_(scale / kLevelsPerDraw),
        rest_levels_(scale % kLevelsPerDraw),
        full_(kLevelsPerDraw),
        rest_(std::max(1u, rest_levels_)) {}

  Edge draw(std::uint64_t index) const {
    Stream rng(key_, index);
    std::uint32_t row = 0, col = 0;
    std::uint64_t bits = 0;
    auto take = [&](const AliasTable& t, unsigned k, unsigned draw) {
      if (draw % 2 == 0) bits = rng.next();  // two 32-bit uniforms
      const std::uint32_t o = t.draw(static_cast<std::uint32_t>(draw % 2 == 0 ? bits : bits >> 32));
      row = row << k | o >> k;
      col = col << k | (o & ((1u << k) - 1));
    };
    unsigned d = 0;
    for (; d < full_draws_; ++d) take(full_, kLevelsPerDraw, d);
    if (rest_levels_ != 0) take(rest_, rest_levels_, d);
    return {row, col};
  }

 private:
  std::uint64_t key_;
  unsigned full_draws_, rest_levels_;
  AliasTable full_, rest_;
};

}  // namespace

std::vector<std::uint32_t> vertex_permutation(unsigned scale, std::uint64_t seed) {
  std::vector<std::uint32_t> perm(std::size_t{1} << scale);
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<std::uint32_t>(i);
  Stream rng(seed, kPermDomain, 0);
  for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
  return perm;
}

std::vector<Edge> kronecker_unpermuted(unsigned scale, std::uint64_t seed, std::uint64_t first,
                                       std::uint64_t count) {
  const Drawer drawer(scale, seed);
  std::vector<Edge> edges(count);
  for (std::uint64_t i = 0; i < count; ++i) edges[i] = drawer.draw(first + i);
  return edges;
}

std::vector<Edge> kronecker_edges(unsigned scale, unsigned edge_factor, std::uint64_t seed,
                                  unsigned threads) {
  const std::uint64_t count = std::uint64_t{edge_factor} << scale;
  std::vector<Edge> edges(count);
  const std::vector<std::uint32_t> perm = vertex_permutation(scale, seed);
  const Drawer drawer(scale, seed);
  auto generate = [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      const Edge e = drawer.draw(i);
      edges[i] = {perm[e.u], perm[e.v]};
    }
  };
  threads = std::max(1u, threads);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    pool.emplace_back(generate, count * t / threads, count * (t + 1) / threads);
  }
  generate(0, count / threads);
  for (auto& th : pool) th.join();
  return edges;
}

}  // namespace tier_workloads::graph
