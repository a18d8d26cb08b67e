// tier-gups' table content: word i starts as mix64(i ^ key), key derived
// from --seed, so the whole table can be checked at exit against a formula
// instead of a copy (which would double the memory and the placement).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "update.hpp"

namespace tier_workloads::gups {

/// The key of --seed's initial content.
std::uint64_t table_key(std::uint64_t seed);

/// Word `index`'s initial value.
inline std::uint64_t initial_word(std::uint64_t index, std::uint64_t key) {
  return mix64(index ^ key);
}

/// PlacedBuffer's fill callback: writes the initial words. PlacedBuffer
/// fills its chunks in order from the buffer's start, so the first chunk's
/// address is word 0's; a chunk out of that order throws std::logic_error.
class TableFill {
 public:
  explicit TableFill(std::uint64_t key) : key_(key) {}
  void operator()(char* chunk, std::size_t length);

 private:
  std::uint64_t key_;
  char* next_ = nullptr;     // where the next chunk must start
  std::uint64_t words_ = 0;  // words written so far
};

/// Writes the initial content of words [first, first + count) into `words`
/// (which points at word `first`).
void fill_words(std::uint64_t* words, std::uint64_t first, std::uint64_t count, std::uint64_t key);

/// The words of [first, last) that differ from their initial content: how
/// many, and the first `keep` indices.
struct Check {
  std::uint64_t bad = 0;
  std::vector<std::uint64_t> first_bad;
  /// Adds `other` (a later range), keeping the first `keep` indices.
  void merge(const Check& other, std::size_t keep);
};
Check check_words(const std::uint64_t* table, std::uint64_t first, std::uint64_t last,
                  std::uint64_t key, std::size_t keep);

}  // namespace tier_workloads::gups
