// The accessing side of hotset: where the hot set is in each phase, how a
// page of it is chosen (uniform or Zipf), and the pinned worker threads that
// read or rewrite one cache line of the chosen page per access, and (with
// --scan-every) interrupt those accesses for periodic scans of the whole
// buffer.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "../suite/zipf.hpp"
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

// Zipf over ranks: the suite's generator (../suite/zipf.hpp). Rank r maps to
// the hot set's r-th page, so the head is at its start.
using tier_workloads::Zipf;

struct Counters {
  std::atomic<std::uint64_t> reads{0};
  std::atomic<std::uint64_t> writes{0};
  // Scans (not accesses): whole passes over the buffer finished, the bytes
  // they covered (always scans x buffer size once the workers stopped) and
  // the nanoseconds the threads spent in them, summed over the threads.
  // Updated after every share, so a census reads them live.
  std::atomic<std::uint64_t> scans{0};
  std::atomic<std::uint64_t> scanned_bytes{0};
  std::atomic<std::uint64_t> scan_ns{0};
};

// Runs opts.threads workers over the buffer until stop is set; each reads
// `phase` (and `limit`) about every thousand accesses. With a limit (a
// growing buffer) only the hot set's first `limit` pages are drawn from:
// the distribution truncated there (Zipf by redrawing), none while it is 0.
//
// With opts.scan_every_s a scan round begins every that many seconds (the
// first one that long after the start): each thread, at its next look
// between accesses, reads the first word of every 64-byte line of its
// 1/threads share of the whole buffer in address order, then goes back to
// its accesses. A round begins only once the previous one is finished by
// every thread (a late round is not made up), and a begun round is finished
// even after stop(), so the counters only ever hold whole passes.
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
  using Clock = std::chrono::steady_clock;
  void run(unsigned id);
  void begin_due_round(Clock::time_point now);
  std::uint64_t scan_share(unsigned id);  // returns the words' sum
  char* base_;
  const Options& opts_;
  const Layout& layout_;
  const std::atomic<unsigned>& phase_;
  const std::atomic<std::size_t>* limit_;
  Zipf zipf_;
  std::atomic<bool> stop_{false};
  Counters counters_;
  // Scan rounds. round_ is read between batches without the lock; the lock
  // orders beginning a round against stop(), so no round begins after a
  // thread has left for good.
  const Clock::duration scan_period_;
  std::mutex scan_mu_;
  std::atomic<std::uint64_t> round_{0};  // rounds begun
  std::uint64_t shares_done_ = 0;        // shares finished, all rounds (scan_mu_)
  Clock::time_point round_due_;          // when the current round was due (scan_mu_)
  std::atomic<Clock::rep> next_round_;   // due time, time_since_epoch; max while one runs
  std::vector<std::thread> threads_;
};

}  // namespace hotset
