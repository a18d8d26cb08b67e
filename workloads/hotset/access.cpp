#include "access.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

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

double zeta(std::size_t n, double theta) {
  double sum = 0;
  for (std::size_t i = 1; i <= n; ++i) sum += 1.0 / std::pow(static_cast<double>(i), theta);
  return sum;
}

}  // namespace

std::vector<std::pair<std::uintptr_t, std::uintptr_t>> Layout::ranges(unsigned phase) const {
  std::size_t start = start_page(phase), end = start + hot_pages_;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
  out.emplace_back(base_ + start * kPage, base_ + std::min(end, pages_) * kPage);
  if (end > pages_) out.emplace_back(base_, base_ + (end - pages_) * kPage);
  return out;
}

Zipf::Zipf(std::size_t n, double theta) : n_(n), theta_(theta) {
  if (theta <= 0) return;  // unused for the uniform distribution
  zetan_ = zeta(n, theta);
  alpha_ = 1.0 / (1.0 - theta);
  eta_ =
      (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta(2, theta) / zetan_);
  half_pow_theta_ = std::pow(0.5, theta);
}

std::size_t Zipf::draw(double u) const {
  double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + half_pow_theta_) return n_ > 1 ? 1 : 0;
  auto r =
      static_cast<std::size_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return r < n_ ? r : n_ - 1;
}

Workers::Workers(char* base, const Options& opts, const Layout& layout,
                 const std::atomic<unsigned>& phase, const std::atomic<std::size_t>* limit)
    : base_(base),
      opts_(opts),
      layout_(layout),
      phase_(phase),
      limit_(limit),
      zipf_(layout.hot_pages(), opts.zipf ? opts.theta : 0) {
  for (unsigned i = 0; i < opts_.threads; ++i) threads_.emplace_back([this, i] { run(i); });
}

Workers::~Workers() {
  stop();
}

void Workers::stop() {
  stop_.store(true);
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
  while (!stop_.load(std::memory_order_relaxed)) {
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
  // Keep the reads from being optimised away.
  asm volatile("" : : "r"(sink) : "memory");
  counters_.reads.fetch_add(reads);
  counters_.writes.fetch_add(writes);
}

}  // namespace hotset
