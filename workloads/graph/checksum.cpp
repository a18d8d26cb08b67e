#include "checksum.hpp"

#include <bit>
#include <cstring>

namespace tier_workloads::graph {
namespace {

constexpr std::uint64_t kPrime = 0x9e3779b97f4a7c15ull;  // odd: multiplying is a bijection

constexpr std::uint64_t fold(std::uint64_t h, std::uint64_t w) {
  return std::rotl((h ^ w) * kPrime, 29);
}

}  // namespace

std::uint64_t checksum_bytes(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t lane[4] = {1, 2, 3, 4};
  const std::size_t words = bytes / 8;
  std::size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    std::uint64_t w[4];
    std::memcpy(w, p + i * 8, sizeof w);  // no alignment assumed
    for (int k = 0; k < 4; ++k) lane[k] = fold(lane[k], w[k]);
  }
  for (; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + i * 8, 8);
    lane[i % 4] = fold(lane[i % 4], w);
  }
  if (bytes % 8 != 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + words * 8, bytes % 8);
    lane[0] = fold(lane[0], w);
  }
  // The length too, so a zero tail cannot vanish unnoticed.
  return fold(fold(fold(fold(lane[0], lane[1]), lane[2]), lane[3]), bytes);
}

std::uint64_t checksum_combine(std::uint64_t first, std::uint64_t second) {
  return fold(first, second);
}

}  // namespace tier_workloads::graph
