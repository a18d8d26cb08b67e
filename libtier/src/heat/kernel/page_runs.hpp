// Internal: turns a stream of page addresses (ascending within a mapping)
// into samples, one per run of adjacent pages, so a 1 GiB written buffer is
// one sample with length 1 GiB rather than 262144 samples. Each sample's
// weight is its page count: every page of the run was seen accessed once,
// and the HeatMap spreads a sample's weight over its bytes. With weight 1 a
// page's heat fell with the number of its neighbours seen too: a 48 MiB hot
// set written whole each epoch got 1/12288 of a sample per page, under the
// HeatMap's forget_below after one decay, and tierd saw no heat in it at all
// (tierd_placement, soft-dirty heat: 28 of 48 MiB promoted, then nothing).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "tier/heat/sample.hpp"

namespace tier::heat::kernel {

class PageRuns {
 public:
  /// Samples are copies of `prototype` (pid, kind, time) with addr/length set.
  PageRuns(std::vector<AccessSample>& out, const AccessSample& prototype, std::uint64_t page)
      : out_(out), prototype_(prototype), page_(page) {}
  ~PageRuns() { finish(); }
  PageRuns(const PageRuns&) = delete;
  PageRuns& operator=(const PageRuns&) = delete;

  void add(std::uint64_t address) {
    // A run ends at the most pages a sample's weight counts (16 TiB of 4 KiB pages).
    if (length_ != 0 && address == start_ + length_ && length_ / page_ < kMaxPages) {
      length_ += page_;
      return;
    }
    finish();
    start_ = address;
    length_ = page_;
  }

  /// Emits the open run; later add()s start a new one.
  void finish() {
    if (length_ == 0) return;
    AccessSample sample = prototype_;
    sample.addr = start_;
    sample.length = length_;
    sample.weight = static_cast<std::uint32_t>(length_ / page_);
    out_.push_back(sample);
    ++emitted_;
    length_ = 0;
  }

  std::uint64_t emitted() const { return emitted_; }

 private:
  static constexpr std::uint64_t kMaxPages = std::numeric_limits<std::uint32_t>::max();
  std::vector<AccessSample>& out_;
  AccessSample prototype_;
  std::uint64_t page_;
  std::uint64_t start_ = 0;
  std::uint64_t length_ = 0;
  std::uint64_t emitted_ = 0;
};

}  // namespace tier::heat::kernel
