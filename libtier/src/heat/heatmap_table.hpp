// GranuleTable: the HeatMap's storage, an open-addressing (linear probing)
// hash table from granule index to score. The per-sample operations are
// inline: the HeatMap calls them once per sample.
//
// Contract:
//  - Every slot is 16 bytes and the slot array is the only heap memory, so
//    bytes_for(capacity()) is exactly what the table holds; the HeatMap's
//    memory budget is enforced on that figure.
//  - Capacity is a power of two >= kMinCapacity; at most max_size(capacity)
//    keys (3/4 load) so a probe always ends at an empty slot.
//  - try_add() never allocates: it returns false when the key is absent and
//    the table is full, and the caller (the HeatMap) decides whether to grow
//    or coarsen.
//  - scale_and_drop() multiplies every score in place and deletes the ones
//    below a threshold with backward-shift deletion (no tombstones, no second
//    table), visiting every entry exactly once.
//  - Key ~0 is reserved for empty slots; granule indices are addr >> shift
//    with shift >= 1, so they never reach it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tier::heat::detail {

class GranuleTable {
 public:
  struct Slot {
    std::uint64_t key;
    double score;
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static constexpr std::size_t kMinCapacity = 32;

  explicit GranuleTable(std::size_t capacity);

  static constexpr std::size_t bytes_for(std::size_t capacity) { return capacity * sizeof(Slot); }
  static constexpr std::size_t max_size(std::size_t capacity) { return capacity / 4 * 3; }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

  /// Adds `score` to `key` (inserting it at `score`); false when `key` is
  /// absent and there is no room for it.
  bool try_add(std::uint64_t key, double score) {
    std::size_t i = home(key);
    for (; slots_[i].key != kEmpty; i = next(i)) {
      if (slots_[i].key == key) {
        slots_[i].score += score;
        return true;
      }
    }
    if (size_ + 1 > max_size(capacity())) return false;
    slots_[i] = Slot{key, score};
    ++size_;
    return true;
  }
  /// The key's score, 0 when absent.
  double find(std::uint64_t key) const {
    for (std::size_t i = home(key); slots_[i].key != kEmpty; i = next(i))
      if (slots_[i].key == key) return slots_[i].score;
    return 0.0;
  }
  /// score *= factor for every key; keys whose score ends below `forget_below`
  /// (or at 0) are deleted.
  void scale_and_drop(double factor, double forget_below);

  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& slot : slots_)
      if (slot.key != kEmpty) f(slot.key, slot.score);
  }

 private:
  // Blocks of 16 consecutive granules keep their order in the table (a region
  // sample or a hot run of pages then touches 4-5 cache lines per 16
  // granules, not one per granule); Fibonacci hashing spreads the blocks.
  // Larger blocks cluster: at 64, colliding blocks overflow into each other
  // and uniform point ingest fell below the baseline (docs/benchmarks.md).
  static constexpr unsigned kBlockShift = 4;
  // hash >> (hash_shift_ + kBlockShift) must stay a valid shift (< 64).
  static_assert((std::size_t{1} << kBlockShift) < kMinCapacity);
  std::size_t home(std::uint64_t key) const {
    const std::uint64_t hash = (key >> kBlockShift) * 0x9E3779B97F4A7C15ull;
    const std::uint64_t block = (hash >> (hash_shift_ + kBlockShift)) << kBlockShift;
    return static_cast<std::size_t>(block | (key & ((1u << kBlockShift) - 1)));
  }
  std::size_t next(std::size_t i) const { return (i + 1) & mask_; }
  /// Empties slot `hole` and shifts later members of its probe cluster back
  /// so every key stays reachable from its home slot.
  void erase_at(std::size_t hole);

  std::vector<Slot> slots_;
  std::size_t mask_;
  unsigned hash_shift_;
  std::size_t size_ = 0;
};

}  // namespace tier::heat::detail
