// Where every page of every workload is, and the mechanics that change it:
// first touch, moves with capacity and budget checks, ping-pong tracking.
// One small array per page (node, last access, node left and when), so a
// million-page model costs ~20 MB.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "address_index.hpp"
#include "tier/policy/policy.hpp"
#include "tier/sim/machine.hpp"
#include "tier/sim/trace.hpp"

namespace tier::sim::detail {

/// What applying one plan did (the move counters of EpochReport).
struct ApplyResult {
  std::size_t failed_moves = 0;
  std::size_t dropped_moves = 0;
  std::uint64_t pages_migrated = 0;
  std::uint64_t failed_bytes = 0;
  std::uint64_t dropped_bytes = 0;
  std::uint64_t ping_pong_pages = 0;
};

class PageModel {
 public:
  PageModel(const Trace& trace, const Machine& machine, std::vector<unsigned> first_touch_node);

  /// First-touches pages up to `allocated` per workload (never shrinks).
  void allocate(const std::vector<std::uint64_t>& allocated);

  /// Applies moves in plan order. budget_bytes: global bytes allowed this
  /// epoch (infinity = none); workload_budget_bytes likewise per workload.
  ApplyResult apply(const std::vector<policy::Move>& moves, std::size_t epoch,
                    std::size_t ping_pong_window, double budget_bytes,
                    const std::vector<double>& workload_budget_bytes);

  std::uint64_t offset(std::size_t workload) const { return offsets_[workload]; }
  std::uint64_t allocated(std::size_t workload) const { return allocated_[workload]; }
  int node(std::uint64_t global_page) const { return node_[global_page]; }
  int node_of(std::size_t workload, std::uint64_t page) const {
    return page < allocated_[workload] ? node_[offsets_[workload] + page] : -1;
  }
  std::uint64_t used_bytes(unsigned node) const { return node < used_.size() ? used_[node] : 0; }
  std::uint64_t free_bytes(unsigned node) const { return capacity_[node] - used_[node]; }
  bool fast(int node) const { return node >= 0 && fast_[static_cast<std::size_t>(node)]; }
  const AddressIndex& index() const { return index_; }

 private:
  const Trace& trace_;
  AddressIndex index_;
  std::vector<std::uint64_t> offsets_;           // first global page of each workload
  std::vector<std::uint64_t> allocated_;         // pages first-touched per workload
  std::vector<std::vector<unsigned>> fallback_;  // per workload
  std::vector<std::int16_t> node_;               // per global page; -1 unallocated
  std::vector<std::int16_t> left_node_;          // node the page last left; -1 never moved
  std::vector<std::int32_t> left_epoch_;         // epoch it left it
  std::vector<std::uint64_t> capacity_, used_;   // by node id
  std::vector<bool> exists_, fast_;              // by node id
};

}  // namespace tier::sim::detail
