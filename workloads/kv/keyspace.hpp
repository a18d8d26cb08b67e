// The keys of a run: which are popular, who may write which, and the
// version each one is at.
//
// Popularity: a key is drawn by rank (Zipf(theta), rank 0 the most popular,
// or uniform) and the rank is mapped through a fixed random permutation of
// the ids (from --seed). The hot keys are therefore scattered over the ids,
// and so over the server's memory (Redis allocates a value when it is
// written, in id order during the load), instead of being the first ids
// loaded and lying side by side.
//
// Writers: worker t of N writes only the keys with id % N == t, so it knows
// their current version exactly. A write draws from the worker's own keys
// with the same skew, in their global popularity order (Zipf over that
// list), so the hottest keys a worker writes are among the hottest keys read.
//
// Versions: published(id) is the version the owner is writing or has
// written. The owner publishes version v + 1 *before* sending its SET and
// sends nothing else until the reply, so for a GET of a key by anyone:
//   p0 = published before sending, p1 = published after the reply
//   the value read has a version in [p0 - 1, p1]
// (p0 - 1: the SET of p0 may not have reached the server yet; no newer than
// p1: nothing newer was sent). The owner's own GET sees p0 == p1 == the
// exact version.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "splitmix.hpp"
#include "zipf.hpp"

namespace tier_kv {

/// The versions a read of a key may find: [lo, hi].
struct VersionRange {
  std::uint32_t lo = 0, hi = 0;
  bool contains(std::uint32_t v) const { return lo <= v && v <= hi; }
};
/// The range for a GET that saw published version `before` when it was sent
/// and `after` once its reply was in (above): exactly `before` for the
/// owner's own key.
VersionRange read_range(std::uint32_t before, std::uint32_t after, bool own);

/// The workers' generator: SplitMix64 (../suite/splitmix.hpp).
using Rng = tier_workloads::SplitMix64;

class Keyspace {
 public:
  /// `keys` ids 0..keys-1 written by `owners` workers (1 <= owners <= keys);
  /// theta in (0, 1) for Zipf, 0 for uniform.
  Keyspace(std::uint32_t keys, unsigned owners, double theta, std::uint64_t seed);

  std::uint32_t keys() const { return static_cast<std::uint32_t>(by_rank_.size()); }
  unsigned owners() const { return owners_; }
  unsigned owner(std::uint32_t id) const { return id % owners_; }
  /// The id of popularity rank `rank`.
  std::uint32_t by_rank(std::size_t rank) const { return by_rank_[rank]; }
  /// The ids `owner` writes, most popular first.
  const std::vector<std::uint32_t>& owned(unsigned owner) const { return owned_[owner]; }

  /// A key to read: any key, by popularity. u uniform in [0, 1).
  std::uint32_t draw_any(double u) const;
  /// A key for `owner` to write: one of its own, by popularity.
  std::uint32_t draw_own(unsigned owner, double u) const;

  std::uint32_t published(std::uint32_t id) const {
    return versions_[id].load(std::memory_order_acquire);
  }
  void publish(std::uint32_t id, std::uint32_t version) {
    versions_[id].store(version, std::memory_order_release);
  }

 private:
  std::size_t rank(const tier_workloads::Zipf& z, std::size_t n, double u) const;

  unsigned owners_;
  double theta_;
  std::vector<std::uint32_t> by_rank_;
  std::vector<std::vector<std::uint32_t>> owned_;
  tier_workloads::Zipf all_;
  std::vector<tier_workloads::Zipf> own_;
  std::vector<std::atomic<std::uint32_t>> versions_;
};

}  // namespace tier_kv
