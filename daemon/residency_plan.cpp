#include "residency_plan.hpp"

#include <algorithm>

namespace tierd {

ScanDuty::ScanDuty(double duty, double cap_s) : duty_(duty), cap_s_(cap_s), credit_s_(cap_s) {}

void ScanDuty::accrue(double now_s) {
  if (last_s_ >= 0 && now_s > last_s_) {
    credit_s_ = std::min(cap_s_, credit_s_ + duty_ * (now_s - last_s_));
  }
  last_s_ = std::max(last_s_, now_s);
}

std::vector<ResidencyTurn> residency_order(
    const std::vector<std::string>& workload_ids,
    const std::map<std::string, std::map<unsigned, std::uint64_t>>& residency,
    const std::map<std::string, double>& scanned_at, const std::set<std::string>& stale,
    const std::set<std::string>& every_epoch) {
  std::vector<ResidencyTurn> fresh, wanted, redo;
  std::vector<std::pair<double, std::string>> rest;
  for (const std::string& id : workload_ids) {
    if (!residency.contains(id)) {
      fresh.push_back({id, true});
    } else if (every_epoch.contains(id)) {
      wanted.push_back({id, true});
    } else if (stale.contains(id)) {
      redo.push_back({id, false});
    } else {
      auto at = scanned_at.find(id);
      rest.emplace_back(at == scanned_at.end() ? 0.0 : at->second, id);
    }
  }
  std::stable_sort(rest.begin(), rest.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ResidencyTurn> order = std::move(fresh);
  order.insert(order.end(), wanted.begin(), wanted.end());
  order.insert(order.end(), redo.begin(), redo.end());
  for (auto& [at, id] : rest) order.push_back({std::move(id), false});
  return order;
}

void shift_residency(std::map<unsigned, std::uint64_t>& bytes_by_node, unsigned from, unsigned to,
                     std::uint64_t moved) {
  if (from == to) return;
  auto source = bytes_by_node.find(from);
  if (source == bytes_by_node.end()) return;
  const std::uint64_t shifted = std::min(moved, source->second);
  source->second -= shifted;
  if (source->second == 0) bytes_by_node.erase(source);
  if (shifted > 0) bytes_by_node[to] += shifted;
}

}  // namespace tierd
