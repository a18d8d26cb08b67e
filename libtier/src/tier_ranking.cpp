#include "tier/tier_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace tier {

namespace {

// The kernel's constants (include/linux/memory-tiers.h): DRAM sits at abstract
// distance 4.5 × 128 and tiers are 128 wide. Reusing them means our HMAT ranks
// agree with the kernel's own tiers wherever the kernel computes them.
constexpr double kDramAbstractDistance = 576.0;
constexpr double kTierChunk = 128.0;
// A SLIT band holds distances up to 20% above its first value: 10 vs 12 (a
// neighbouring NPS node) is the same tier, 10 vs 17+ (CXL, remote) is not.
constexpr double kSlitBandWidth = 1.2;

const NodePerf* best_perf_for_target(const std::vector<NodePerf>& perf, unsigned target) {
  const NodePerf* best = nullptr;
  for (const auto& entry : perf) {
    if (entry.target != target || !entry.read_latency_ns) continue;
    if (best == nullptr || *entry.read_latency_ns < *best->read_latency_ns ||
        (*entry.read_latency_ns == *best->read_latency_ns &&
         entry.access_class > best->access_class)) {
      best = &entry;
    }
  }
  return best;
}

double sum_or_double(const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b) {
  if (a && b) return static_cast<double>(*a + *b);
  if (a) return 2.0 * static_cast<double>(*a);
  if (b) return 2.0 * static_cast<double>(*b);
  return 0.0;
}

// Dense ranks of keys (smaller key → smaller rank), grouped by `same_band`.
template <typename Key>
std::map<unsigned, unsigned> dense_rank(const std::map<unsigned, Key>& keys,
                                        const std::function<bool(Key, Key)>& same_band) {
  std::vector<Key> sorted;
  for (const auto& [node, key] : keys) sorted.push_back(key);
  std::sort(sorted.begin(), sorted.end());
  std::vector<Key> band_starts;
  for (Key key : sorted) {
    if (band_starts.empty() || !same_band(band_starts.back(), key)) band_starts.push_back(key);
  }
  std::map<unsigned, unsigned> rank;
  for (const auto& [node, key] : keys) {
    auto it = std::upper_bound(band_starts.begin(), band_starts.end(), key);
    rank[node] = static_cast<unsigned>(std::distance(band_starts.begin(), it) - 1);
  }
  return rank;
}

}  // namespace

std::map<unsigned, double> hmat_abstract_distance(const std::vector<Node>& nodes,
                                                  const std::vector<NodePerf>& perf) {
  // Reference: mean local performance of nodes with CPUs (the kernel uses the
  // performance of its default DRAM tier in the same way).
  double ref_latency = 0, ref_bandwidth = 0;
  int ref_count = 0, ref_bw_count = 0;
  for (const auto& node : nodes) {
    if (node.cpus.empty()) continue;
    const NodePerf* local = best_perf_for_target(perf, node.id);
    if (local == nullptr || local->initiator != node.id) continue;
    ref_latency += sum_or_double(local->read_latency_ns, local->write_latency_ns);
    ++ref_count;
    double bw = sum_or_double(local->read_bandwidth_mbps, local->write_bandwidth_mbps);
    if (bw > 0) {
      ref_bandwidth += bw;
      ++ref_bw_count;
    }
  }
  std::map<unsigned, double> result;
  if (ref_count == 0 || ref_latency <= 0) return result;
  ref_latency /= ref_count;
  if (ref_bw_count > 0) ref_bandwidth /= ref_bw_count;

  for (const auto& node : nodes) {
    const NodePerf* best = best_perf_for_target(perf, node.id);
    if (best == nullptr) continue;
    double latency_ratio = sum_or_double(best->read_latency_ns, best->write_latency_ns) / ref_latency;
    double bandwidth = sum_or_double(best->read_bandwidth_mbps, best->write_bandwidth_mbps);
    double ratio = latency_ratio;
    if (ref_bandwidth > 0 && bandwidth > 0) ratio = (latency_ratio + ref_bandwidth / bandwidth) / 2;
    result[node.id] = kDramAbstractDistance * ratio;
  }
  return result;
}

std::map<unsigned, unsigned> nearest_cpu_distance(
    const std::vector<Node>& nodes, const std::vector<std::vector<unsigned>>& distances) {
  std::map<unsigned, unsigned> result;
  if (distances.size() != nodes.size()) return result;
  for (std::size_t target = 0; target < nodes.size(); ++target) {
    std::optional<unsigned> best;
    for (std::size_t initiator = 0; initiator < nodes.size(); ++initiator) {
      if (nodes[initiator].cpus.empty() || distances[initiator].size() != nodes.size()) continue;
      unsigned d = distances[initiator][target];
      if (d > 0 && (!best || d < *best)) best = d;
    }
    if (best) result[nodes[target].id] = *best;
  }
  return result;
}

TierAssignment rank_tiers(const std::vector<TierEvidence>& evidence,
                          const std::map<unsigned, unsigned>& tier_override) {
  TierAssignment out;
  std::vector<const TierEvidence*> ranked;  // memory nodes not overridden
  for (const auto& e : evidence) {
    if (auto it = tier_override.find(e.node); it != tier_override.end()) {
      out.rank[e.node] = it->second;
      out.source[e.node] = TierSource::config;
    } else if (e.has_memory) {
      ranked.push_back(&e);
    }
  }

  auto all_have = [&](auto member) {
    return !ranked.empty() && std::all_of(ranked.begin(), ranked.end(),
                                          [&](const TierEvidence* e) { return (e->*member).has_value(); });
  };

  std::map<unsigned, unsigned> ranks;
  TierSource source = TierSource::single;
  if (all_have(&TierEvidence::kernel_tier)) {
    std::map<unsigned, int> keys;
    for (auto* e : ranked) keys[e->node] = *e->kernel_tier;
    auto r = dense_rank<int>(keys, [](int a, int b) { return a == b; });
    if (std::any_of(r.begin(), r.end(), [](const auto& kv) { return kv.second > 0; })) {
      ranks = r;
      source = TierSource::kernel;
    }
  }
  if (ranks.empty() && all_have(&TierEvidence::abstract_distance)) {
    std::map<unsigned, long> keys;
    for (auto* e : ranked) keys[e->node] = std::lround(std::floor(*e->abstract_distance / kTierChunk));
    auto r = dense_rank<long>(keys, [](long a, long b) { return a == b; });
    if (std::any_of(r.begin(), r.end(), [](const auto& kv) { return kv.second > 0; })) {
      ranks = r;
      source = TierSource::hmat;
    }
  }
  if (ranks.empty() && all_have(&TierEvidence::nearest_cpu_distance)) {
    std::map<unsigned, unsigned> keys;
    for (auto* e : ranked) keys[e->node] = *e->nearest_cpu_distance;
    auto r = dense_rank<unsigned>(keys, [](unsigned start, unsigned d) {
      return static_cast<double>(d) <= static_cast<double>(start) * kSlitBandWidth;
    });
    if (std::any_of(r.begin(), r.end(), [](const auto& kv) { return kv.second > 0; })) {
      ranks = r;
      source = TierSource::slit;
    }
  }

  for (auto* e : ranked) {
    out.rank[e->node] = ranks.empty() ? 0 : ranks.at(e->node);
    out.source[e->node] = source;
  }
  // Memoryless nodes (CPUs only) hold no pages: rank them with the fastest tier.
  for (const auto& e : evidence) {
    if (!out.rank.contains(e.node)) {
      out.rank[e.node] = 0;
      out.source[e.node] = source;
    }
  }
  out.overall = ranked.empty() && !tier_override.empty() ? TierSource::config : source;
  return out;
}

}  // namespace tier
