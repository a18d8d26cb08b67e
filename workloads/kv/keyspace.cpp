#include "keyspace.hpp"

#include <numeric>
#include <utility>

namespace tier_kv {

VersionRange read_range(std::uint32_t before, std::uint32_t after, bool own) {
  if (own) return {before, before};
  return {before > 0 ? before - 1 : 0, after};
}

Keyspace::Keyspace(std::uint32_t keys, unsigned owners, double theta, std::uint64_t seed)
    : owners_(owners),
      theta_(theta),
      by_rank_(keys),
      owned_(owners),
      all_(keys, theta),
      versions_(keys) {
  std::iota(by_rank_.begin(), by_rank_.end(), 0u);
  // Fisher-Yates with the run's seed: the same permutation for the same --seed.
  Rng rng(seed ^ 0x7065726d75746521ull);
  for (std::size_t i = by_rank_.size(); i > 1; --i) {
    std::swap(by_rank_[i - 1], by_rank_[rng.next() % i]);
  }
  for (auto& list : owned_) list.reserve(keys / owners + 1);
  for (std::uint32_t id : by_rank_) owned_[owner(id)].push_back(id);
  own_.reserve(owners);
  for (const auto& list : owned_) own_.emplace_back(list.size(), theta);
}

std::size_t Keyspace::rank(const tier_workloads::Zipf& z, std::size_t n, double u) const {
  if (theta_ > 0) return z.draw(u);
  const auto r = static_cast<std::size_t>(u * static_cast<double>(n));
  return r < n ? r : n - 1;
}

std::uint32_t Keyspace::draw_any(double u) const {
  return by_rank_[rank(all_, by_rank_.size(), u)];
}

std::uint32_t Keyspace::draw_own(unsigned owner, double u) const {
  const auto& list = owned_[owner];
  return list[rank(own_[owner], list.size(), u)];
}

}  // namespace tier_kv
