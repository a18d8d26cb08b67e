// The content of every page: each 8-byte word holds a hash of its own virtual
// address. Writers store the same value again, so the expected content never
// changes: a page that was migrated keeps verifying, a page that was lost,
// zeroed or mixed up with another page does not.
#pragma once

#include <cstddef>
#include <cstdint>

#include "options.hpp"

namespace hotset {

inline std::uint64_t word_value(std::uintptr_t addr) {
  // splitmix64 finaliser: neighbouring addresses get unrelated values.
  std::uint64_t z = (addr ^ 0x484f54534554ull) * 0x9E3779B97F4A7C15ull;  // "HOTSET"
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline void fill_words(std::uint64_t* p, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) p[j] = word_value(reinterpret_cast<std::uintptr_t>(p + j));
}

inline bool check_words(const std::uint64_t* p, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    if (p[j] != word_value(reinterpret_cast<std::uintptr_t>(p + j))) return false;
  }
  return true;
}

inline constexpr std::size_t kPageWords = kPage / sizeof(std::uint64_t);

}  // namespace hotset
