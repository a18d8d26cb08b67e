#include "page_model.hpp"

#include <algorithm>
#include <stdexcept>

namespace tier::sim::detail {

PageModel::PageModel(const Trace& trace, const Machine& machine,
                     std::vector<unsigned> first_touch_node)
    : trace_(trace), index_(trace) {
  std::uint64_t total = 0;
  for (const TraceWorkload& w : trace.workloads) {
    offsets_.push_back(total);
    total += w.pages();
  }
  allocated_.assign(trace.workloads.size(), 0);
  node_.assign(total, -1);
  left_node_.assign(total, -1);
  left_epoch_.assign(total, 0);
  unsigned max_id = 0;
  for (const MachineNode& n : machine.nodes) max_id = std::max(max_id, n.id);
  if (max_id > 32767) throw std::invalid_argument("node ids above 32767 are not modelled");
  capacity_.assign(max_id + 1, 0);
  used_.assign(max_id + 1, 0);
  exists_.assign(max_id + 1, false);
  fast_.assign(max_id + 1, false);
  for (const MachineNode& n : machine.nodes) {
    capacity_[n.id] = n.capacity_bytes;
    exists_[n.id] = true;
    fast_[n.id] = n.tier == 0;
  }
  for (unsigned node : first_touch_node) fallback_.push_back(machine.fallback_order(node));
}

void PageModel::allocate(const std::vector<std::uint64_t>& allocated) {
  const std::uint64_t page = trace_.page_bytes;
  for (std::size_t w = 0; w < allocated_.size(); ++w) {
    std::size_t choice = 0;  // index into the fallback order; nodes only fill up
    for (; allocated_[w] < allocated[w]; ++allocated_[w]) {
      while (choice < fallback_[w].size() &&
             capacity_[fallback_[w][choice]] - used_[fallback_[w][choice]] < page) {
        ++choice;
      }
      if (choice == fallback_[w].size()) {
        throw std::runtime_error("the machine cannot hold the trace: no node has room for page " +
                                 std::to_string(allocated_[w]) + " of workload " +
                                 trace_.workloads[w].id);
      }
      const unsigned target = fallback_[w][choice];
      used_[target] += page;
      node_[offsets_[w] + allocated_[w]] = static_cast<std::int16_t>(target);
    }
  }
}

ApplyResult PageModel::apply(const std::vector<policy::Move>& moves, std::size_t epoch,
                             std::size_t ping_pong_window, double budget_bytes,
                             const std::vector<double>& workload_budget_bytes) {
  ApplyResult result;
  const std::uint64_t page = trace_.page_bytes;
  const auto page_bytes = static_cast<double>(page);
  std::vector<double> workload_left = workload_budget_bytes;
  bool global_spent = false;
  std::vector<bool> workload_spent(workload_left.size(), false);
  for (const policy::Move& move : moves) {
    const bool node_ok = move.target_node < exists_.size() && exists_[move.target_node];
    const bool pid_ok =
        move.pid > 0 && trace_.workload_of_pid(static_cast<std::uint32_t>(move.pid)).has_value();
    if (!node_ok || !pid_ok || move.end <= move.start) {
      // Nothing moves: an unknown node, a process the trace does not have, an
      // empty range. The pages it named (if any) count as failed.
      ++result.failed_moves;
      if (move.end > move.start) {
        index_.for_each_piece(static_cast<std::uint32_t>(move.pid), move.start,
                              move.end - move.start,
                              [&](std::uint32_t w, std::uint64_t first, std::uint64_t n) {
                                const std::uint64_t last = std::min(first + n, allocated_[w]);
                                if (last > first) result.failed_bytes += (last - first) * page;
                              });
      }
      continue;
    }
    bool failed = false, dropped = false;
    index_.for_each_piece(
        static_cast<std::uint32_t>(move.pid), move.start, move.end - move.start,
        [&](std::uint32_t w, std::uint64_t first, std::uint64_t n) {
          const std::uint64_t last = std::min(first + n, allocated_[w]);
          for (std::uint64_t p = first; p < last; ++p) {
            const std::uint64_t g = offsets_[w] + p;
            if (node_[g] == static_cast<int>(move.target_node)) continue;
            if (global_spent || workload_spent[w] || budget_bytes < page_bytes ||
                workload_left[w] < page_bytes) {
              // A rate-limited mover cancelled at the tick boundary: this page
              // and every later one (of this workload, or of all when the
              // global budget ran out) stay put.
              global_spent = global_spent || budget_bytes < page_bytes;
              workload_spent[w] = workload_spent[w] || workload_left[w] < page_bytes;
              dropped = true;
              result.dropped_bytes += page;
              continue;
            }
            if (capacity_[move.target_node] - used_[move.target_node] < page) {
              failed = true;
              result.failed_bytes += page;
              continue;
            }
            const auto from = static_cast<unsigned>(node_[g]);
            used_[from] -= page;
            used_[move.target_node] += page;
            budget_bytes -= page_bytes;
            workload_left[w] -= page_bytes;
            if (left_node_[g] == static_cast<int>(move.target_node) &&
                epoch - static_cast<std::size_t>(left_epoch_[g]) <= ping_pong_window) {
              ++result.ping_pong_pages;
            }
            left_node_[g] = static_cast<std::int16_t>(from);
            left_epoch_[g] = static_cast<std::int32_t>(epoch);
            node_[g] = static_cast<std::int16_t>(move.target_node);
            ++result.pages_migrated;
          }
        });
    if (failed) ++result.failed_moves;
    if (dropped) ++result.dropped_moves;
  }
  return result;
}

}  // namespace tier::sim::detail
