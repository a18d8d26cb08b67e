// HeatMap queries (contract: tier/heat/heatmap.hpp): hottest, coldest,
// ranges_above, histogram. Each sorts a scratch copy of the scored granules
// by address - O(n log n) per query, no index kept between queries, so the
// per-sample path pays nothing for them. The scratch copy is transient and
// not part of memory_bytes().
#include <algorithm>
#include <cmath>
#include <limits>

#include "heat/heatmap_impl.hpp"

namespace tier::heat {
namespace {

using Slot = detail::GranuleTable::Slot;

/// Maximal runs of adjacent granules (consecutive keys) whose score `keep`s.
template <typename Keep>
std::vector<HeatRange> runs_of(detail::Granules g, const std::vector<Slot>& sorted, Keep keep) {
  std::vector<HeatRange> runs;
  for (auto it = sorted.begin(); it != sorted.end();) {
    if (!keep(it->score)) {
      ++it;
      continue;
    }
    const std::uint64_t first = it->key;
    std::uint64_t last = first;
    double score = it->score;
    for (++it; it != sorted.end() && it->key == last + 1 && keep(it->score); ++it) {
      last = it->key;
      score += it->score;
    }
    const double granules = static_cast<double>(last - first) + 1.0;
    runs.push_back({g.start(first), g.end(last), score, score / granules});
  }
  return runs;
}

/// The first k of `ranges` in `before` order.
template <typename Before>
std::vector<HeatRange> first_k(std::vector<HeatRange> ranges, std::size_t k, Before before) {
  k = std::min(k, ranges.size());
  std::partial_sort(ranges.begin(), ranges.begin() + static_cast<std::ptrdiff_t>(k), ranges.end(),
                    before);
  ranges.resize(k);
  return ranges;
}

/// Cuts tracked range `r` into runs of scored granules (clipped to `r`) and
/// the never-scored gaps between them (score 0).
void split_tracked(detail::Granules g, const std::vector<Slot>& sorted, const AddressRange& r,
                   std::vector<HeatRange>& out) {
  const std::uint64_t first_key = r.start >> g.shift;
  const std::uint64_t last_key = (r.end - 1) >> g.shift;
  auto it = std::lower_bound(sorted.begin(), sorted.end(), first_key,
                             [](const Slot& s, std::uint64_t key) { return s.key < key; });
  std::uint64_t cursor = r.start;  // first byte of r not yet in a run
  while (it != sorted.end() && it->key <= last_key) {
    const std::uint64_t first = it->key;
    std::uint64_t last = first;
    double score = it->score;
    for (++it; it != sorted.end() && it->key == last + 1 && it->key <= last_key; ++it) {
      last = it->key;
      score += it->score;
    }
    const std::uint64_t start = std::max(r.start, g.start(first));
    const std::uint64_t end = std::min(r.end, g.end(last));
    if (cursor < start) out.push_back({cursor, start, 0.0, 0.0});
    out.push_back({start, end, score, score / (static_cast<double>(last - first) + 1.0)});
    cursor = end;
  }
  if (cursor < r.end) out.push_back({cursor, r.end, 0.0, 0.0});
}

}  // namespace

std::vector<Slot> HeatMap::Impl::sorted_entries() const {
  std::vector<Slot> sorted;
  sorted.reserve(table.size());
  table.for_each([&](std::uint64_t key, double score) { sorted.push_back({key, score}); });
  std::sort(sorted.begin(), sorted.end(),
            [](const Slot& a, const Slot& b) { return a.key < b.key; });
  return sorted;
}

std::vector<HeatRange> HeatMap::hottest(std::size_t k) const {
  if (k == 0) return {};
  auto runs = runs_of(impl_->granules(), impl_->sorted_entries(), [](double) { return true; });
  return first_k(std::move(runs), k, [](const HeatRange& a, const HeatRange& b) {
    return a.density != b.density ? a.density > b.density : a.start < b.start;
  });
}

std::vector<HeatRange> HeatMap::coldest(std::size_t k) const {
  if (k == 0) return {};
  const auto sorted = impl_->sorted_entries();
  std::vector<HeatRange> runs;
  if (impl_->tracked.empty()) {
    runs = runs_of(impl_->granules(), sorted, [](double) { return true; });
  } else {
    for (const AddressRange& r : impl_->tracked) split_tracked(impl_->granules(), sorted, r, runs);
  }
  // Equally cold: the larger run first (more to demote per decision).
  return first_k(std::move(runs), k, [](const HeatRange& a, const HeatRange& b) {
    if (a.density != b.density) return a.density < b.density;
    if (a.end - a.start != b.end - b.start) return a.end - a.start > b.end - b.start;
    return a.start < b.start;
  });
}

std::vector<HeatRange> HeatMap::ranges_above(double threshold) const {
  return runs_of(impl_->granules(), impl_->sorted_entries(),
                 [&](double s) { return s >= threshold; });
}

std::vector<HeatRange> HeatMap::granule_scores() const {
  const detail::Granules g = impl_->granules();
  std::vector<HeatRange> out;
  for (const Slot& slot : impl_->sorted_entries()) {
    out.push_back({g.start(slot.key), g.end(slot.key), slot.score, slot.score});
  }
  return out;
}

std::vector<HistogramBin> HeatMap::histogram(std::size_t bins) const {
  if (bins == 0 || impl_->table.size() == 0) return {};
  double lowest = std::numeric_limits<double>::infinity();
  double highest = 0.0;
  impl_->table.for_each([&](std::uint64_t, double s) {
    lowest = std::min(lowest, s);
    highest = std::max(highest, s);
  });
  // Edges lowest * ratio^(i/bins); the top edge just above the highest score
  // so every score falls in some [low, high).
  const double top = std::nextafter(highest, std::numeric_limits<double>::infinity());
  std::vector<double> edges(bins + 1);
  for (std::size_t i = 0; i <= bins; ++i)
    edges[i] = lowest * std::pow(top / lowest, static_cast<double>(i) / static_cast<double>(bins));
  edges.front() = lowest;
  edges.back() = top;
  std::vector<HistogramBin> out(bins);
  for (std::size_t i = 0; i < bins; ++i) out[i] = {edges[i], edges[i + 1], 0, 0};
  // Binning by search over the same edges the bins report, so a score on an
  // edge lands in the bin whose [low, high) holds it.
  impl_->table.for_each([&](std::uint64_t, double s) {
    auto above = std::upper_bound(edges.begin(), edges.end(), s);
    auto bin = static_cast<std::size_t>(above - edges.begin()) - 1;
    ++out[std::min(bin, bins - 1)].granules;
  });
  for (HistogramBin& bin : out) bin.bytes = bin.granules * granule_bytes();
  return out;
}

}  // namespace tier::heat
