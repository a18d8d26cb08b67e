// HeatMap ingest, decay and memory budget (contract: tier/heat/heatmap.hpp,
// design: docs/heatmap.md). The queries live in heatmap_queries.cpp.
//
// Why coarsening instead of eviction: dropping cold granules to make room
// would make never-sampled and once-sampled memory indistinguishable, which
// is exactly the difference coldest() needs; doubling the granule keeps every
// access counted (scores add) at a coarser resolution, as DAMON's regions do.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "heat/heatmap_impl.hpp"

namespace tier::heat {
namespace {

constexpr std::uint64_t kMaxAddr = std::numeric_limits<std::uint64_t>::max();

void validate(const HeatMapConfig& c) {
  if (!(c.decay > 0.0 && c.decay <= 1.0))
    throw std::invalid_argument("HeatMap decay must be in (0, 1], got " + std::to_string(c.decay));
  if (!(c.forget_below >= 0.0) || !std::isfinite(c.forget_below))
    throw std::invalid_argument("HeatMap forget_below must be finite and >= 0");
  if (!(c.memory_fraction >= 0.0) || !std::isfinite(c.memory_fraction))
    throw std::invalid_argument("HeatMap memory_fraction must be finite and >= 0");
  // Shift 0 would let a granule index reach the table's empty key (~0).
  if (c.min_granule_shift < 1 || c.min_granule_shift > 62)
    throw std::invalid_argument("HeatMap min_granule_shift must be in [1, 62], got " +
                                std::to_string(c.min_granule_shift));
}

std::size_t budget_of(const HeatMapConfig& c) {
  const double share = static_cast<double>(c.tracked_bytes) * c.memory_fraction;
  const double cap = static_cast<double>(std::numeric_limits<std::size_t>::max()) / 2;
  return std::max(c.min_budget_bytes, static_cast<std::size_t>(std::min(share, cap)));
}

/// Sorted, merged copy of `ranges` (empty ranges dropped), so coldest() can
/// walk them once in address order.
std::vector<AddressRange> normalized(std::vector<AddressRange> ranges) {
  std::erase_if(ranges, [](const AddressRange& r) { return r.end <= r.start; });
  std::sort(ranges.begin(), ranges.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
  std::vector<AddressRange> merged;
  for (const AddressRange& r : ranges) {
    if (!merged.empty() && r.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, r.end);
    else
      merged.push_back(r);
  }
  merged.shrink_to_fit();
  return merged;
}

}  // namespace

HeatMap::Impl::Impl(HeatMapConfig c)
    : config((validate(c), c)),
      budget(budget_of(c)),
      shift(c.min_granule_shift),
      table(detail::GranuleTable::kMinCapacity) {
  if (memory_bytes() > budget)
    throw std::invalid_argument("HeatMap budget of " + std::to_string(budget) +
                                " bytes is below the smallest map (" +
                                std::to_string(memory_bytes()) + " bytes)");
  fit_budget();
}

std::size_t HeatMap::Impl::memory_bytes() const {
  return sizeof(Impl) + detail::GranuleTable::bytes_for(table.capacity()) +
         tracked.capacity() * sizeof(AddressRange);
}

void HeatMap::Impl::rebuild(unsigned new_shift, std::size_t capacity) {
  detail::GranuleTable next(capacity);
  const unsigned by = new_shift - shift;
  table.for_each([&](std::uint64_t key, double score) { next.try_add(key >> by, score); });
  table = std::move(next);
  shift = new_shift;
}

void HeatMap::Impl::make_room() {
  const std::size_t capacity = table.capacity();
  if (capacity < max_capacity) {
    rebuild(shift, capacity * 2);
    return;
  }
  // At shift 62 at most 4 granules exist, below any table's max_size(), so
  // this stops before the shift could pass 63.
  while (table.size() >= detail::GranuleTable::max_size(capacity)) rebuild(shift + 1, capacity);
}

void HeatMap::Impl::fit_budget() {
  const std::size_t fixed = memory_bytes() - detail::GranuleTable::bytes_for(table.capacity());
  std::size_t capacity = detail::GranuleTable::kMinCapacity;
  while (fixed + detail::GranuleTable::bytes_for(capacity * 2) <= budget) capacity *= 2;
  max_capacity = capacity;
  if (table.capacity() <= capacity) return;
  while (table.size() > detail::GranuleTable::max_size(capacity))
    rebuild(shift + 1, table.capacity());
  rebuild(shift, capacity);
}

void HeatMap::Impl::credit(std::uint64_t addr, double score) {
  while (!table.try_add(addr >> shift, score)) make_room();
}

HeatMap::HeatMap(HeatMapConfig config) : impl_(new Impl(config)) {}
HeatMap::~HeatMap() {
  delete impl_;
}
HeatMap::HeatMap(HeatMap&& other) noexcept : impl_(std::exchange(other.impl_, nullptr)) {}
HeatMap& HeatMap::operator=(HeatMap&& other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}

void HeatMap::set_tracked_ranges(std::vector<AddressRange> ranges) {
  impl_->tracked = normalized(std::move(ranges));
  impl_->fit_budget();
}

void HeatMap::add(std::uint64_t addr, std::uint64_t length, double weight) {
  if (!(weight > 0.0) || !std::isfinite(weight)) return;
  Impl& m = *impl_;
  // Inclusive last byte, so a region reaching the top of the address space
  // needs no 2^64; what lies beyond it is cut off.
  const std::uint64_t last = length <= 1 ? addr : addr + std::min(length - 1, kMaxAddr - addr);
  if ((addr >> m.shift) == (last >> m.shift)) {  // the common case: one granule
    m.credit(addr, weight);
    return;
  }
  const double bytes = static_cast<double>(last - addr) + 1.0;
  // Bound the cost of one sample: a region spanning more granules than the
  // budget can hold would coarsen the map anyway, so do it once up front.
  const std::size_t most = detail::GranuleTable::max_size(m.max_capacity);
  unsigned target = m.shift;
  while ((last >> target) - (addr >> target) >= most) ++target;
  if (target != m.shift) m.rebuild(target, m.table.capacity());
  // Byte-proportional shares: equal per granule for granule-aligned regions,
  // and a coarse granule's score stays the sum of its fine granules' scores.
  for (std::uint64_t pos = addr;;) {
    const std::uint64_t mask = (std::uint64_t{1} << m.shift) - 1;  // shift may grow in credit()
    const std::uint64_t segment_last = std::min(last, pos | mask);
    m.credit(pos, weight * (static_cast<double>(segment_last - pos) + 1.0) / bytes);
    if (segment_last == last) break;
    pos = segment_last + 1;
  }
}

void HeatMap::end_epoch() {
  impl_->table.scale_and_drop(impl_->config.decay, impl_->config.forget_below);
  ++impl_->epochs;
}

double HeatMap::score_at(std::uint64_t addr) const {
  return impl_->table.find(addr >> impl_->shift);
}
std::size_t HeatMap::scored_granules() const {
  return impl_->table.size();
}
std::uint64_t HeatMap::granule_bytes() const {
  return std::uint64_t{1} << impl_->shift;
}
std::size_t HeatMap::memory_bytes() const {
  return impl_->memory_bytes();
}
std::size_t HeatMap::budget_bytes() const {
  return impl_->budget;
}
std::uint64_t HeatMap::epoch() const {
  return impl_->epochs;
}

}  // namespace tier::heat
