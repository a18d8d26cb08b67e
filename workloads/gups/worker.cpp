#include "worker.hpp"

#include <stdexcept>

namespace tier_workloads::gups {

Worker::Worker(const Layout& layout, unsigned index, std::uint64_t seed)
    : layout_(layout),
      index_(index),
      stream_(stream_seed(seed, index)),
      rng_(stream_),
      picker_(layout, index, 0) {}

void Worker::update(std::uint64_t* table, std::uint64_t phase, std::uint64_t n) {
  if (phase < phase_) throw std::logic_error("tier-gups: a worker's phase went backwards");
  if (phase != phase_) {
    phase_ = phase;
    per_phase_.resize(phase + 1, 0);
    picker_ = Picker(layout_, index_, phase);
  }
  apply(table, picker_, rng_, n);
  per_phase_[phase] += n;
  total_ += n;
  published_.store(total_, std::memory_order_relaxed);
}

void Worker::run(std::uint64_t* table, const std::atomic<bool>& stopping,
                 const std::atomic<std::uint64_t>& phase) {
  while (!stopping.load(std::memory_order_relaxed)) {
    update(table, phase.load(std::memory_order_relaxed), kChunk);
  }
}

void Worker::replay(std::uint64_t* table) const {
  Rng rng(stream_);
  for (std::uint64_t p = 0; p < per_phase_.size(); ++p) {
    if (per_phase_[p] > 0) apply(table, Picker(layout_, index_, p), rng, per_phase_[p]);
  }
}

}  // namespace tier_workloads::gups
