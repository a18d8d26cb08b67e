// Reader of a perf_event mmap ring: the metadata page (struct
// perf_event_mmap_page) followed by a power-of-two data area.
//
// Contract: drain() reads data_head with acquire ordering (the kernel's
// smp_store_release pairs with it), hands every complete record between
// data_tail and data_head to the callback - records that wrap past the end of
// the data area are first copied into one contiguous buffer - and then
// publishes the new data_tail with release ordering, so the kernel never
// overwrites a record before it was read. The reader does not own the memory;
// tests point it at an ordinary buffer laid out like the kernel's mapping.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace tier::heat::perf {

class PerfRingReader {
 public:
  using RecordSink = std::function<void(std::span<const std::uint8_t> record)>;

  /// `data_size` must be a power of two (the kernel's mmap rule).
  PerfRingReader(perf_event_mmap_page* meta, std::uint8_t* data, std::size_t data_size);

  /// Delivers all complete records; returns how many. A header that cannot be
  /// a record (size < 8 or larger than what is available) means the ring is
  /// corrupt: everything up to data_head is skipped and counted in corrupt().
  std::size_t drain(const RecordSink& sink);

  std::uint64_t corrupt() const { return corrupt_; }
  std::size_t data_size() const { return size_; }

 private:
  perf_event_mmap_page* meta_;
  std::uint8_t* data_;
  std::size_t size_;
  std::vector<std::uint8_t> wrap_copy_;
  std::uint64_t corrupt_ = 0;
};

}  // namespace tier::heat::perf
