#include "placement_common.hpp"

#include <algorithm>
#include <cmath>

namespace tier::policy {

NodeLedger::NodeLedger(const Snapshot& snapshot, double low_free_pct, double high_free_pct) {
  for (const NodeState& node : snapshot.nodes) {
    Entry entry;
    entry.state = node;
    entry.free = static_cast<std::int64_t>(node.free_bytes);
    const auto pct = [&](double p) {
      return static_cast<std::uint64_t>(static_cast<double>(node.total_bytes) * p / 100.0);
    };
    entry.low = std::max(node.high_watermark_bytes, pct(low_free_pct));
    entry.high = std::max({node.high_watermark_bytes, pct(high_free_pct), entry.low});
    nodes_[node.node] = entry;
  }
}

std::uint64_t NodeLedger::free(unsigned node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end()
             ? 0
             : static_cast<std::uint64_t>(std::max<std::int64_t>(it->second.free, 0));
}
std::uint64_t NodeLedger::low(unsigned node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? 0 : it->second.low;
}
std::uint64_t NodeLedger::high(unsigned node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? 0 : it->second.high;
}
unsigned NodeLedger::tier(unsigned node) const {
  auto it = nodes_.find(node);
  return it == nodes_.end() ? 0 : it->second.state.tier;
}

bool NodeLedger::fits_above_high(unsigned node, std::uint64_t bytes) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return false;
  return it->second.free - static_cast<std::int64_t>(bytes) >=
         static_cast<std::int64_t>(it->second.high);
}

void NodeLedger::move(int from, unsigned to, std::uint64_t bytes) {
  const auto amount = static_cast<std::int64_t>(bytes);
  if (from >= 0) {
    if (auto it = nodes_.find(static_cast<unsigned>(from)); it != nodes_.end()) {
      it->second.free += amount;
    }
  }
  if (auto it = nodes_.find(to); it != nodes_.end()) it->second.free -= amount;
}

std::vector<unsigned> NodeLedger::nodes_of_tier(unsigned tier_rank) const {
  std::vector<unsigned> out;
  for (const auto& [id, entry] : nodes_) {
    if (entry.state.tier == tier_rank) out.push_back(id);
  }
  return out;
}

unsigned NodeLedger::fastest_tier() const {
  unsigned fastest = ~0U;
  for (const auto& [id, entry] : nodes_) fastest = std::min(fastest, entry.state.tier);
  return nodes_.empty() ? 0 : fastest;
}

std::vector<unsigned> NodeLedger::nodes() const {
  std::vector<unsigned> out;
  for (const auto& [id, entry] : nodes_) out.push_back(id);
  return out;
}

double latency_ns(const Snapshot& snapshot, const NodeLedger& ledger, int cpu_node, unsigned node) {
  if (cpu_node >= 0 && static_cast<std::size_t>(cpu_node) < snapshot.latency_ns.size()) {
    const auto& row = snapshot.latency_ns[static_cast<std::size_t>(cpu_node)];
    if (node < row.size() && row[node] > 0) return row[node];
  }
  const double local = cpu_node >= 0 && static_cast<unsigned>(cpu_node) == node ? 0 : 10;
  return 100.0 + 100.0 * ledger.tier(node) + local;
}

int home_cpu_node(const Snapshot& snapshot, const WorkloadState& workload) {
  if (!workload.cpu_nodes.empty()) return workload.cpu_nodes.front();
  for (const NodeState& node : snapshot.nodes) {
    if (node.has_cpus) return static_cast<int>(node.node);
  }
  return 0;
}

std::vector<unsigned> nearest_of_tier(const Snapshot& snapshot, const NodeLedger& ledger,
                                      int cpu_node, unsigned tier_rank) {
  std::vector<unsigned> nodes = ledger.nodes_of_tier(tier_rank);
  std::stable_sort(nodes.begin(), nodes.end(), [&](unsigned a, unsigned b) {
    return latency_ns(snapshot, ledger, cpu_node, a) < latency_ns(snapshot, ledger, cpu_node, b);
  });
  return nodes;
}

Budget::Budget(double policy_mbps, double snapshot_mbps, double tick_s) {
  double mbps = 0;
  if (policy_mbps > 0) mbps = policy_mbps;
  if (snapshot_mbps > 0) mbps = mbps > 0 ? std::min(mbps, snapshot_mbps) : snapshot_mbps;
  if (mbps > 0) left_ = static_cast<std::uint64_t>(mbps * kMiB * std::max(tick_s, 0.0));
}

void Budget::spend(std::uint64_t bytes) {
  if (left_) *left_ = bytes >= *left_ ? 0 : *left_ - bytes;
}

void MoveHistory::configure(double min_residency_s, double backoff_s, unsigned bounce_limit) {
  min_residency_s_ = min_residency_s;
  backoff_s_ = backoff_s;
  bounce_limit_ = bounce_limit;
}

template <typename Visit>
bool MoveHistory::any_block(const Region& region, Visit visit) const {
  if (region.end <= region.start) return false;
  const std::uint64_t first = region.start / kBlock, last = (region.end - 1) / kBlock;
  auto it = entries_.lower_bound({region.pid, first});
  for (; it != entries_.end() && it->first.first == region.pid && it->first.second <= last; ++it) {
    if (visit(it->second)) return true;
  }
  return false;
}

bool MoveHistory::bouncing(const Region& region, double now_s) const {
  if (bounce_limit_ == 0) return false;
  return any_block(region, [&](const Entry& entry) {
    std::size_t recent = 0;
    for (double t : entry.moves) recent += now_s - t < backoff_s_ ? 1 : 0;
    return recent >= bounce_limit_;
  });
}

bool MoveHistory::may_move(const Region& region, double now_s) const {
  const bool resting = any_block(region, [&](const Entry& entry) {
    return !entry.moves.empty() && now_s - entry.moves.back() < min_residency_s_;
  });
  return !resting && !bouncing(region, now_s);
}

void MoveHistory::record(const Region& region, double now_s) {
  if (region.end <= region.start) return;
  for (std::uint64_t b = region.start / kBlock; b <= (region.end - 1) / kBlock; ++b) {
    std::vector<double>& moves = entries_[{region.pid, b}].moves;
    // Several regions of one block moving in the same tick count once.
    if (moves.empty() || moves.back() != now_s) moves.push_back(now_s);
  }
}

void MoveHistory::expire(double now_s) {
  const double window = std::max(backoff_s_, min_residency_s_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    auto& moves = it->second.moves;
    moves.erase(
        std::remove_if(moves.begin(), moves.end(), [&](double t) { return now_s - t >= window; }),
        moves.end());
    it = moves.empty() ? entries_.erase(it) : std::next(it);
  }
}

}  // namespace tier::policy
