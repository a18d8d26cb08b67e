// Batched reads and writes of the page_idle bitmap (see idle_bitmap.hpp).
#include "idle_bitmap.hpp"

#include <unistd.h>

#include <cerrno>

#include "tier/heat/page_tracking.hpp"

namespace tier::heat::kernel {

namespace {

constexpr std::size_t kMaxRunWords = 8192;  // 64 KiB per syscall

// Calls fn(first_word, count) for each run of consecutive word indices.
template <typename Fn>
int for_each_run(const std::map<std::uint64_t, std::uint64_t>& words, Fn&& fn) {
  auto it = words.begin();
  while (it != words.end()) {
    std::uint64_t first = it->first;
    std::size_t count = 0;
    while (it != words.end() && it->first == first + count && count < kMaxRunWords) {
      ++it;
      ++count;
    }
    if (int error = fn(first, count); error != 0) return error;
  }
  return 0;
}

std::map<std::uint64_t, std::uint64_t> masks_of(const std::vector<std::uint64_t>& pfns) {
  std::map<std::uint64_t, std::uint64_t> masks;
  for (std::uint64_t pfn : pfns) masks[idle_bitmap::word_of(pfn)] |= idle_bitmap::bit_of(pfn);
  return masks;
}

}  // namespace

int IdleBitmap::mark_idle(const std::vector<std::uint64_t>& pfns) const {
  const auto masks = masks_of(pfns);
  std::vector<std::uint64_t> buffer;
  return for_each_run(masks, [&](std::uint64_t first, std::size_t count) {
    buffer.clear();
    for (auto it = masks.find(first); buffer.size() < count; ++it) buffer.push_back(it->second);
    std::size_t bytes = count * idle_bitmap::kWordBytes;
    ssize_t n = pwrite(fd_.get(), buffer.data(), bytes,
                       static_cast<off_t>(first * idle_bitmap::kWordBytes));
    if (n < 0) return errno;
    return static_cast<std::size_t>(n) == bytes ? 0 : EIO;
  });
}

int IdleBitmap::read(const std::vector<std::uint64_t>& pfns,
                     std::map<std::uint64_t, std::uint64_t>& words) const {
  words.clear();
  const auto masks = masks_of(pfns);
  std::vector<std::uint64_t> buffer;
  return for_each_run(masks, [&](std::uint64_t first, std::size_t count) {
    buffer.assign(count, 0);
    ssize_t n = pread_full(fd_.get(), buffer.data(), count * idle_bitmap::kWordBytes,
                           first * idle_bitmap::kWordBytes);
    if (n < 0) return errno;
    std::size_t got = static_cast<std::size_t>(n) / idle_bitmap::kWordBytes;
    for (std::size_t i = 0; i < got; ++i) words[first + i] = buffer[i];
    return 0;
  });
}

bool accessed_since_marked(const std::map<std::uint64_t, std::uint64_t>& words, std::uint64_t pfn) {
  auto it = words.find(idle_bitmap::word_of(pfn));
  return it != words.end() && (it->second & idle_bitmap::bit_of(pfn)) == 0;
}

}  // namespace tier::heat::kernel
