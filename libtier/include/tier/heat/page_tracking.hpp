// The two per-page kernel ABIs the soft-dirty and idle-page sources read,
// spelled out once (Documentation/admin-guide/mm/pagemap.rst,
// soft-dirty.rst, idle_page_tracking.rst).
//
// /proc/PID/pagemap: one little-endian u64 per virtual page, at offset
// (vaddr / page size) * 8. Bits 0-54 hold the PFN when the page is present
// (zero without CAP_SYS_ADMIN), bit 55 is soft-dirty, 61 file-page or
// shared-anon, 62 swapped, 63 present.
//
// /sys/kernel/mm/page_idle/bitmap: one bit per PFN, read and written only in
// aligned 8-byte words: the word for a PFN is at byte offset pfn / 64 * 8 and
// the PFN is bit pfn % 64 of it. Writing a 1 marks the page idle (0 bits are
// ignored); reading gives 1 for pages not accessed since they were marked.
#pragma once

#include <cstdint>

namespace tier::heat::pagemap {

inline constexpr std::uint64_t kEntryBytes = 8;
inline constexpr std::uint64_t kPfnMask = (std::uint64_t{1} << 55) - 1;  // bits 0-54
inline constexpr std::uint64_t kSoftDirty = std::uint64_t{1} << 55;
inline constexpr std::uint64_t kSwapped = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kPresent = std::uint64_t{1} << 63;

inline constexpr bool present(std::uint64_t entry) {
  return (entry & kPresent) != 0;
}
inline constexpr bool swapped(std::uint64_t entry) {
  return (entry & kSwapped) != 0;
}
inline constexpr bool soft_dirty(std::uint64_t entry) {
  return (entry & kSoftDirty) != 0;
}
/// The PFN of a present page; 0 when hidden (no CAP_SYS_ADMIN) or not present.
inline constexpr std::uint64_t pfn(std::uint64_t entry) {
  return present(entry) ? entry & kPfnMask : 0;
}

}  // namespace tier::heat::pagemap

namespace tier::heat::idle_bitmap {

inline constexpr std::uint64_t kWordBytes = 8;
inline constexpr std::uint64_t kBitsPerWord = 64;

/// Index of the 8-byte word holding `pfn` (its byte offset is word * 8).
inline constexpr std::uint64_t word_of(std::uint64_t pfn) {
  return pfn / kBitsPerWord;
}
/// The bit of `pfn` inside its word.
inline constexpr std::uint64_t bit_of(std::uint64_t pfn) {
  return std::uint64_t{1} << (pfn % kBitsPerWord);
}

}  // namespace tier::heat::idle_bitmap
