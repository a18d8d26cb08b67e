// The consumer side of the perf mmap ring protocol (perf_event_open(2),
// "mmap layout"): load data_head with acquire, read, store data_tail with
// release. head and tail are free-running byte counters; the offset into the
// data area is counter & (size - 1).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tier/heat/perf_ring.hpp"

namespace tier::heat::perf {

PerfRingReader::PerfRingReader(perf_event_mmap_page* meta, std::uint8_t* data,
                               std::size_t data_size)
    : meta_(meta), data_(data), size_(data_size) {
  if (data_size == 0 || (data_size & (data_size - 1)) != 0) {
    throw std::invalid_argument("perf ring data size " + std::to_string(data_size) +
                                " is not a power of two");
  }
}

std::size_t PerfRingReader::drain(const RecordSink& sink) {
  const std::uint64_t head = __atomic_load_n(&meta_->data_head, __ATOMIC_ACQUIRE);
  std::uint64_t tail = meta_->data_tail;  // only this reader writes it
  const std::uint64_t mask = size_ - 1;
  std::size_t delivered = 0;

  while (head - tail >= sizeof(perf_event_header)) {
    // The header itself may straddle the end of the data area.
    perf_event_header header;
    std::size_t offset = tail & mask;
    std::size_t first = std::min(sizeof header, size_ - offset);
    std::memcpy(&header, data_ + offset, first);
    std::memcpy(reinterpret_cast<std::uint8_t*>(&header) + first, data_, sizeof header - first);
    if (header.size < sizeof header || header.size > head - tail) {
      ++corrupt_;
      tail = head;  // cannot frame the rest: resynchronise at the producer's position
      break;
    }
    if (offset + header.size <= size_) {
      sink(std::span<const std::uint8_t>(data_ + offset, header.size));
    } else {
      std::size_t part = size_ - offset;
      wrap_copy_.resize(header.size);
      std::memcpy(wrap_copy_.data(), data_ + offset, part);
      std::memcpy(wrap_copy_.data() + part, data_, header.size - part);
      sink(std::span<const std::uint8_t>(wrap_copy_.data(), header.size));
    }
    tail += header.size;
    ++delivered;
  }
  __atomic_store_n(&meta_->data_tail, tail, __ATOMIC_RELEASE);
  return delivered;
}

}  // namespace tier::heat::perf
