// The accessing side of hotset: where the hot set is in each phase, how a
// page of it is chosen (uniform or Zipf), and the pinned worker threads that
// read or rewrite one cache line of the chosen page per access.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "options.hpp"

namespace hotset {

// Phase k's hot set starts k hot-set lengths after the first one and wraps
// around the buffer's end, so each shift moves the whole hot set onto pages
// that were cold (as long as the buffer holds more than one hot set).
class Layout {
 public:
  Layout(std::uintptr_t base, const Options& o)
      : base_(base),
        pages_(o.size / kPage),
        hot_pages_(o.hot / kPage),
        first_(o.hot_offset / kPage) {}
  std::size_t pages() const { return pages_; }
  std::size_t hot_pages() const { return hot_pages_; }
  std::size_t start_page(unsigned phase) const {
    return (first_ + static_cast<std::size_t>(phase) * hot_pages_) % pages_;
  }
  // Page number (from the buffer's start) of the hot set's index-th page.
  std::size_t page(unsigned phase, std::size_t index) const {
    return (start_page(phase) + index) % pages_;
  }
  // The phase's hot set as [start, end) virtual address ranges (two if it wraps).
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges(unsigned phase) const;

 private:
  std::uintptr_t base_;
  std::size_t pages_, hot_pages_, first_;
};

// Zipf over ranks [0, n) (Gray et al., "Quickly generating billion-record
// synthetic databases", as in YCSB): O(1) per draw after an O(n) setup.
// Rank r maps to the hot set's r-th page, so the head is at its start.
class Zipf {
 public:
  Zipf(std::size_t n, double theta);
  std::size_t draw(double u) const;  // u uniform in [0, 1)

 private:
  std::size_t n_;
  double theta_, zetan_, alpha_, eta_, half_pow_theta_;
};

struct Counters {
  std::atomic<std::uint64_t> reads{0};
  std::atomic<std::uint64_t> writes{0};
};

// Runs opts.threads workers over the buffer until stop is set; each reads
// `phase` (and `limit`) about every thousand accesses. With a limit (a
// growing buffer) only the hot set's first `limit` pages are drawn from:
// the distribution truncated there (Zipf by redrawing), none while it is 0.
class Workers {
 public:
  Workers(char* base, const Options& opts, const Layout& layout, const std::atomic<unsigned>& phase,
          const std::atomic<std::size_t>* limit = nullptr);
  ~Workers();
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  void stop();  // joins; idempotent
  const Counters& counters() const { return counters_; }

 private:
  void run(unsigned id);
  char* base_;
  const Options& opts_;
  const Layout& layout_;
  const std::atomic<unsigned>& phase_;
  const std::atomic<std::size_t>* limit_;
  Zipf zipf_;
  std::atomic<bool> stop_{false};
  Counters counters_;
  std::vector<std::thread> threads_;
};

}  // namespace hotset
