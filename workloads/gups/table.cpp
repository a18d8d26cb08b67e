#include "table.hpp"

#include <stdexcept>

namespace tier_workloads::gups {

std::uint64_t table_key(std::uint64_t seed) {
  return mix64(seed ^ 0xbb67ae8584caa73bull);
}

void TableFill::operator()(char* chunk, std::size_t length) {
  if (next_ != nullptr && chunk != next_) {
    throw std::logic_error("tier-gups: the buffer was filled out of order");
  }
  fill_words(reinterpret_cast<std::uint64_t*>(chunk), words_, length / 8, key_);
  next_ = chunk + length;
  words_ += length / 8;
}

void fill_words(std::uint64_t* words, std::uint64_t first, std::uint64_t count, std::uint64_t key) {
  for (std::uint64_t k = 0; k < count; ++k) words[k] = initial_word(first + k, key);
}

void Check::merge(const Check& other, std::size_t keep) {
  bad += other.bad;
  for (auto i : other.first_bad) {
    if (first_bad.size() >= keep) break;
    first_bad.push_back(i);
  }
}

Check check_words(const std::uint64_t* table, std::uint64_t first, std::uint64_t last,
                  std::uint64_t key, std::size_t keep) {
  Check c;
  for (std::uint64_t i = first; i < last; ++i) {
    if (table[i] == initial_word(i, key)) continue;
    ++c.bad;
    if (c.first_bad.size() < keep) c.first_bad.push_back(i);
  }
  return c;
}

}  // namespace tier_workloads::gups
