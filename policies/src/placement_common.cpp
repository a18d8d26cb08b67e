#include "placement_common.hpp"

#include <algorithm>
#include <bit>
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

Budget::Budget(std::optional<std::uint64_t> policy_bytes, double snapshot_mbps, double tick_s)
    : left_(policy_bytes) {
  if (snapshot_mbps > 0) {
    const auto bytes = static_cast<std::uint64_t>(snapshot_mbps * kMiB * std::max(tick_s, 0.0));
    left_ = left_ ? std::min(*left_, bytes) : bytes;
  }
}

void Budget::spend(std::uint64_t bytes) {
  if (left_) *left_ = bytes >= *left_ ? 0 : *left_ - bytes;
}

void MoveHistory::configure(double min_residency_s, double backoff_s, unsigned bounce_limit) {
  min_residency_s_ = min_residency_s;
  backoff_s_ = backoff_s;
  bounce_limit_ = bounce_limit;
}

std::uint32_t MoveHistory::parts_of(std::uint64_t block, std::uint64_t start, std::uint64_t end) {
  const std::uint64_t base = block * kBlock;
  const std::uint64_t first = (std::max(start, base) - base) / kPart;
  const std::uint64_t last = (std::min(end, base + kBlock) - 1 - base) / kPart;
  const std::uint64_t count = last - first + 1;
  return count >= 32 ? ~std::uint32_t{0}
                     : static_cast<std::uint32_t>(((std::uint64_t{1} << count) - 1) << first);
}

// Visits every block `region` covers that has history, as (block, the parts
// of it the region covers, entry); stops at the first visit returning true.
template <typename Visit>
bool MoveHistory::any_block(const Region& region, Visit visit) const {
  if (region.end <= region.start || entries_.empty()) return false;
  const std::uint64_t first = region.start / kBlock, last = (region.end - 1) / kBlock;
  if (last - first + 1 > entries_.size()) {  // a huge region: walk the history instead
    for (const auto& [key, entry] : entries_) {
      if (key.pid == region.pid && key.block >= first && key.block <= last &&
          visit(key.block, parts_of(key.block, region.start, region.end), entry)) {
        return true;
      }
    }
    return false;
  }
  for (std::uint64_t b = first; b <= last; ++b) {
    auto it = entries_.find({region.pid, b});
    if (it != entries_.end() && visit(b, parts_of(b, region.start, region.end), it->second)) {
      return true;
    }
  }
  return false;
}

bool MoveHistory::held(const Entry& entry, std::uint32_t parts, double now_s,
                       bool waive_residency) const {
  std::uint8_t recent[32] = {};
  for (const Move& move : entry.moves) {
    const std::uint32_t overlap = move.parts & parts;
    if (overlap == 0) continue;
    if (!waive_residency && now_s - move.time < min_residency_s_) return true;
    if (bounce_limit_ == 0 || now_s - move.time >= backoff_s_) continue;
    for (std::uint32_t bits = overlap; bits != 0; bits &= bits - 1) {
      const int part = std::countr_zero(bits);
      if (++recent[part] >= bounce_limit_) return true;
    }
  }
  return false;
}

std::optional<Region> MoveHistory::movable_part(const Region& region, double now_s,
                                                bool waive_residency) const {
  if (region.end <= region.start) return std::nullopt;
  if (entries_.empty()) return region;
  std::vector<std::uint64_t> held_blocks;
  any_block(region, [&](std::uint64_t block, std::uint32_t parts, const Entry& entry) {
    if (held(entry, parts, now_s, waive_residency)) held_blocks.push_back(block);
    return false;
  });
  if (held_blocks.empty()) return region;
  std::sort(held_blocks.begin(), held_blocks.end());
  std::uint64_t block = region.start / kBlock;
  const std::uint64_t last = (region.end - 1) / kBlock;
  std::size_t h = 0;
  while (h < held_blocks.size() && held_blocks[h] == block) ++h, ++block;
  if (block > last) return std::nullopt;
  Region part = region;
  part.start = std::max(region.start, block * kBlock);
  if (h < held_blocks.size()) part.end = std::min(region.end, held_blocks[h] * kBlock);
  return part;
}

void MoveHistory::record(const Region& region, double now_s) {
  if (region.end <= region.start) return;
  for (std::uint64_t b = region.start / kBlock; b <= (region.end - 1) / kBlock; ++b) {
    std::vector<Move>& moves = entries_[{region.pid, b}].moves;
    const std::uint32_t parts = parts_of(b, region.start, region.end);
    // Several regions of one block moving in the same tick are one move.
    if (!moves.empty() && moves.back().time == now_s) {
      moves.back().parts |= parts;
    } else {
      moves.push_back({now_s, parts});
      recorded_.emplace_back(now_s, Key{region.pid, b});
    }
  }
}

void MoveHistory::expire(double now_s) {
  const double window = std::max(backoff_s_, min_residency_s_);
  while (!recorded_.empty() && now_s - recorded_.front().first >= window) {
    auto it = entries_.find(recorded_.front().second);
    recorded_.pop_front();
    if (it == entries_.end()) continue;
    auto& moves = it->second.moves;
    moves.erase(std::remove_if(moves.begin(), moves.end(),
                               [&](const Move& move) { return now_s - move.time >= window; }),
                moves.end());
    if (moves.empty()) entries_.erase(it);
  }
}

std::vector<unsigned> allowed_only(const std::vector<unsigned>& nodes, const WorkloadState& w) {
  if (w.allowed_nodes.empty()) return nodes;
  std::vector<unsigned> out;
  for (unsigned node : nodes) {
    if (std::find(w.allowed_nodes.begin(), w.allowed_nodes.end(), node) != w.allowed_nodes.end()) {
      out.push_back(node);
    }
  }
  return out;
}

}  // namespace tier::policy
