// GranuleTable (heatmap_table.hpp): construction and the in-place deletion
// behind the per-epoch decay pass (the per-sample operations are inline in
// the header).
#include "heat/heatmap_table.hpp"

#include <sys/mman.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tier::heat::detail {

namespace {

/// Asks for transparent huge pages on the 2 MiB-aligned part of a large
/// table before it is first touched: probes land anywhere in up to 64 MiB,
/// and with 4 KiB pages nearly every probe would also miss the TLB. Advice
/// only: with THP off it changes nothing, and a failure is harmless.
void advise_huge_pages(void* data, std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(data) % kHuge;
  const std::size_t lead = misalign == 0 ? 0 : kHuge - misalign;
  if (bytes <= lead) return;
  const std::size_t whole = (bytes - lead) / kHuge * kHuge;
  if (whole > 0) madvise(static_cast<char*>(data) + lead, whole, MADV_HUGEPAGE);
}

}  // namespace

GranuleTable::GranuleTable(std::size_t capacity)
    : mask_(capacity - 1), hash_shift_(64 - static_cast<unsigned>(std::countr_zero(capacity))) {
  if (capacity < kMinCapacity || !std::has_single_bit(capacity))
    throw std::invalid_argument("GranuleTable capacity must be a power of two >= " +
                                std::to_string(kMinCapacity));
  slots_.reserve(capacity);  // allocated, not yet touched
  advise_huge_pages(slots_.data(), bytes_for(capacity));
  slots_.assign(capacity, Slot{kEmpty, 0.0});
}

void GranuleTable::erase_at(std::size_t hole) {
  for (std::size_t j = next(hole); slots_[j].key != kEmpty; j = next(j)) {
    // The member at j may fill the hole unless its home lies cyclically in
    // (hole, j]: then moving it before its home would make it unreachable.
    const std::size_t h = home(slots_[j].key);
    const bool home_after_hole = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (home_after_hole) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = Slot{kEmpty, 0.0};
  --size_;
}

void GranuleTable::scale_and_drop(double factor, double forget_below) {
  if (size_ == 0) return;
  // Start right after an empty slot (one exists: load <= 3/4) and go once
  // around. Backward shifts only move not-yet-visited members into the
  // current or later positions of the same cluster, and no cluster crosses
  // the starting empty slot, so each member is scaled exactly once.
  std::size_t start = 0;
  while (slots_[start].key != kEmpty) ++start;
  std::size_t i = next(start);
  for (std::size_t visited = 0; visited < capacity() - 1;) {
    Slot& slot = slots_[i];
    if (slot.key != kEmpty) {
      slot.score *= factor;
      if (!(slot.score > 0.0) || slot.score < forget_below) {
        erase_at(i);
        continue;  // slot i now holds an unvisited member (or is empty)
      }
    }
    i = next(i);
    ++visited;
  }
}

}  // namespace tier::heat::detail
