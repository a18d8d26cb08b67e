#include "update.hpp"

#include <cmath>

namespace tier_workloads::gups {
namespace {

/// Words below `x` that worker `first` of `stride` owns (first, first +
/// stride, ...).
std::uint64_t owned_below(std::uint64_t x, std::uint64_t first, std::uint64_t stride) {
  return x > first ? (x - first - 1) / stride + 1 : 0;
}

}  // namespace

std::uint64_t Layout::hot_start(std::uint64_t phase) const {
  __extension__ using wide = unsigned __int128;
  return static_cast<std::uint64_t>((hot_offset + static_cast<wide>(phase) * hot_words) % words);
}

Picker::Picker(const Layout& layout, unsigned worker, std::uint64_t phase)
    : first_(worker),
      stride_(layout.threads),
      owned_(owned_below(layout.words, first_, stride_)),
      // 2^32 when the fraction is 1: every draw's low 32 bits are below it.
      threshold_(static_cast<std::uint64_t>(std::llround(layout.hot_fraction * 4294967296.0))) {
  const std::uint64_t start = layout.hot_start(phase);
  const std::uint64_t end = start + layout.hot_words;  // may pass the table's end: it wraps
  const std::uint64_t before = owned_below(start, first_, stride_);
  hot_first_ = owned_ > 0 ? before % owned_ : 0;
  hot_count_ = end <= layout.words
                   ? owned_below(end, first_, stride_) - before
                   : (owned_ - before) + owned_below(end - layout.words, first_, stride_);
}

}  // namespace tier_workloads::gups
