#include "access.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "pattern.hpp"

namespace hotset {
namespace {

constexpr std::size_t kLine = 64;
constexpr std::size_t kLineWords = kLine / sizeof(std::uint64_t);
constexpr unsigned kBatch = 1024;  // accesses between looks at stop/phase

// xoshiro-style generators are overkill here: splitmix64 is fast, has a
// full period over 64 bits and needs one word of state per thread.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace

std::vector<std::pair<std::uintptr_t, std::uintptr_t>> Layout::ranges(unsigned phase) const {
  std::size_t start = start_page(phase), end = start + hot_pages_;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
  out.emplace_back(base_ + start * kPage, base_ + std::min(end, pages_) * kPage);
  if (end > pages_) out.emplace_back(base_, base_ + (end - pages_) * kPage);
  return out;
}

Workers::Workers(char* base, const Options& opts, const Layout& layout,
                 const std::atomic<unsigned>& phase, const std::atomic<std::size_t>* limit)
    : base_(base),
      opts_(opts),
      layout_(layout),
      phase_(phase),
      limit_(limit),
      zipf_(layout.hot_pages(), opts.zipf ? opts.theta : 0),
      // Clamped to 1e9 s (never due anyway) so the nanosecond clock cannot overflow.
      scan_period_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(std::min(opts.scan_every_s, 1e9)))),
      next_round_(opts.scan_every_s > 0 ? (Clock::now() + scan_period_).time_since_epoch().count()
                                        : std::numeric_limits<Clock::rep>::max()) {
  for (unsigned i = 0; i < opts_.threads; ++i) threads_.emplace_back([this, i] { run(i); });
}

Workers::~Workers() {
  stop();
}

void Workers::stop() {
  {
    std::lock_guard<std::mutex> lock(scan_mu_);  // no scan round begins after this
    stop_.store(true);
  }
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void Workers::run(unsigned id) {
  if (!opts_.cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<unsigned>(opts_.cpus[id % opts_.cpus.size()]), &set);
    int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (err != 0) {
      // Unpinned threads would make the local/remote split meaningless.
      std::fprintf(stderr, "hotset: pinning thread %u: %s\n", id, std::strerror(err));
      std::abort();
    }
  }
  Rng rng{0x5EED0000ull + id};
  const std::size_t hot = layout_.hot_pages();
  // The integer threshold keeps the read/write choice off the FPU.
  const auto write_below = static_cast<std::uint64_t>(opts_.write_fraction * 0x1.0p32);
  std::uint64_t reads = 0, writes = 0, sink = 0;
  const bool scanning = opts_.scan_every_s > 0;
  std::uint64_t scanned = 0;  // rounds this thread has read its share of
  while (!stop_.load(std::memory_order_relaxed)) {
    if (scanning) {
      begin_due_round(Clock::now());
      // At most one share owed: a round begins only after the last one ended.
      if (round_.load() > scanned) {
        sink += scan_share(id);
        ++scanned;
      }
    }
    unsigned phase = phase_.load(std::memory_order_relaxed);
    std::size_t lim = limit_ != nullptr ? limit_->load(std::memory_order_relaxed) : hot;
    if (lim == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    for (unsigned k = 0; k < kBatch; ++k) {
      std::uint64_t r = rng.next();
      std::size_t index = (r >> 32) % lim;
      if (opts_.zipf) {
        index = zipf_.draw(rng.unit());
        for (int tries = 0; index >= lim && tries < 16; ++tries) index = zipf_.draw(rng.unit());
        if (index >= lim) index %= lim;
      }
      std::size_t line = (r >> 58) % (kPage / kLine);  // bits apart from the write choice
      auto* p = reinterpret_cast<std::uint64_t*>(base_ + layout_.page(phase, index) * kPage +
                                                 line * kLine);
      if ((r & 0xffffffffull) < write_below) {
        fill_words(p, kLineWords);  // the same pattern again: a real store, same content
        ++writes;
      } else {
        for (std::size_t j = 0; j < kLineWords; ++j) sink += p[j];
        ++reads;
      }
    }
  }
  if (scanning) {
    // Under the lock stop() set stop_ with: every round begun is seen here.
    bool owed = false;
    {
      std::lock_guard<std::mutex> lock(scan_mu_);
      owed = round_.load() > scanned;
    }
    if (owed) sink += scan_share(id);
  }
  // Keep the reads from being optimised away.
  asm volatile("" : : "r"(sink) : "memory");
  counters_.reads.fetch_add(reads);
  counters_.writes.fetch_add(writes);
}

void Workers::begin_due_round(Clock::time_point now) {
  // The common case, lock-free: not due yet, or a round is still running.
  if (now.time_since_epoch().count() < next_round_.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(scan_mu_);
  const Clock::time_point due{Clock::duration(next_round_.load())};
  if (stop_.load() || now < due) return;  // stopping, or another thread began it
  round_due_ = due;
  next_round_.store(std::numeric_limits<Clock::rep>::max());
  round_.fetch_add(1);
}

std::uint64_t Workers::scan_share(unsigned id) {
  // Thread id's share: pages [pages*id/n, pages*(id+1)/n), so the shares
  // tile the buffer exactly whatever the thread count.
  const std::size_t pages = layout_.pages(), n = opts_.threads;
  const std::size_t lo = pages * id / n * kPage, hi = pages * (id + 1) / n * kPage;
  const auto* words = reinterpret_cast<const std::uint64_t*>(base_);
  const Clock::time_point began = Clock::now();
  std::uint64_t sum = 0;
  for (std::size_t off = lo; off < hi; off += kLine) sum += words[off / sizeof(std::uint64_t)];
  const Clock::time_point ended = Clock::now();
  counters_.scanned_bytes.fetch_add(hi - lo);
  counters_.scan_ns.fetch_add(static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(ended - began).count()));
  std::lock_guard<std::mutex> lock(scan_mu_);
  if (++shares_done_ == round_.load() * n) {
    // The round's last share: the next one is due a period after this one
    // was, or at once if the round took longer than that.
    counters_.scans.fetch_add(1);
    next_round_.store(std::max(round_due_ + scan_period_, ended).time_since_epoch().count());
  }
  return sum;
}

}  // namespace hotset
