#include "plan_filter.hpp"

#include <algorithm>
#include <map>

namespace tierd {

namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Node of the region holding `addr` in `pid`'s regions (sorted by start).
int node_at(const std::map<pid_t, std::vector<const tier::policy::Region*>>& regions, pid_t pid,
            std::uint64_t addr) {
  auto found = regions.find(pid);
  if (found == regions.end()) return -1;
  const auto& list = found->second;
  auto it =
      std::upper_bound(list.begin(), list.end(), addr,
                       [](std::uint64_t a, const tier::policy::Region* r) { return a < r->start; });
  if (it == list.begin()) return -1;
  --it;
  return addr < (*it)->end ? (*it)->node : -1;
}

}  // namespace

std::uint64_t kernel_promotion_floor(const tier::policy::NodeState& node) {
  return std::max(kGiB, node.total_bytes / 16) + node.high_watermark_bytes;
}

FilteredPlan filter_plan(const KernelRole& kernel, bool paused, const tier::policy::Plan& plan,
                         const tier::policy::Snapshot& snapshot) {
  // Most ticks plan nothing: no index of every workload's regions for them.
  if (plan.moves.empty()) return {};
  std::map<pid_t, std::vector<const tier::policy::Region*>> regions;
  for (const tier::policy::WorkloadState& w : snapshot.workloads) {
    for (const tier::policy::Region& r : w.regions) regions[r.pid].push_back(&r);
  }
  for (auto& [pid, list] : regions) {
    std::sort(list.begin(), list.end(),
              [](const auto* a, const auto* b) { return a->start < b->start; });
  }
  std::map<unsigned, const tier::policy::NodeState*> nodes;
  for (const tier::policy::NodeState& n : snapshot.nodes) nodes[n.node] = &n;
  auto tier_of = [&nodes](int node) -> int {
    auto found = node < 0 ? nodes.end() : nodes.find(static_cast<unsigned>(node));
    return found == nodes.end() ? -1 : static_cast<int>(found->second->tier);
  };

  FilteredPlan out;
  for (const tier::policy::Move& move : plan.moves) {
    PlannedMove planned{move, node_at(regions, move.pid, move.start), MigrationDirection::promote};
    const int from_tier = tier_of(planned.from_node);
    const int to_tier = tier_of(static_cast<int>(move.target_node));
    if (from_tier >= 0 && to_tier > from_tier) planned.direction = MigrationDirection::demote;
    if (paused) {
      out.withheld.push_back({std::move(planned), "paused"});
      continue;
    }
    switch (kernel.mode) {
      case KernelTiering::own:
        out.execute.push_back(std::move(planned));
        break;
      case KernelTiering::observe:
        out.withheld.push_back({std::move(planned), "observe: tierd moves nothing"});
        break;
      case KernelTiering::coexist: {
        auto target = nodes.find(move.target_node);
        if (kernel.promotes_into_room && planned.direction == MigrationDirection::promote &&
            target != nodes.end() &&
            target->second->free_bytes >= kernel_promotion_floor(*target->second)) {
          out.withheld.push_back(
              {std::move(planned), "coexist: node " + std::to_string(move.target_node) +
                                       " has room, the kernel promotes into it"});
        } else {
          out.execute.push_back(std::move(planned));
        }
        break;
      }
    }
  }
  return out;
}

}  // namespace tierd
