#include "tier/topology/tier_ranking.hpp"

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

// The entry of a target with the best figures: lowest latency when latencies
// are known, else highest bandwidth (some firmware reports only one of them).
const NodePerf* best_perf_for_target(const std::vector<NodePerf>& perf, unsigned target) {
  const NodePerf* best = nullptr;
  auto better = [](const NodePerf& a, const NodePerf& b) {
    if (a.read_latency_ns && b.read_latency_ns) return *a.read_latency_ns < *b.read_latency_ns;
    if (a.read_latency_ns || b.read_latency_ns) return a.read_latency_ns.has_value();
    return a.read_bandwidth_mbps.value_or(0) > b.read_bandwidth_mbps.value_or(0);
  };
  for (const auto& entry : perf) {
    if (entry.target != target || (!entry.read_latency_ns && !entry.read_bandwidth_mbps)) continue;
    if (best == nullptr || better(entry, *best)) best = &entry;
  }
  return best;
}

// read+write, or twice the one that is known; nullopt when neither is.
std::optional<double> both_ways(const std::optional<std::uint64_t>& read,
                                const std::optional<std::uint64_t>& write) {
  if (read && write) return static_cast<double>(*read + *write);
  if (read) return 2.0 * static_cast<double>(*read);
  if (write) return 2.0 * static_cast<double>(*write);
  return std::nullopt;
}

struct Figures {
  std::optional<double> latency, bandwidth;
};

Figures figures_of(const NodePerf& p) {
  return {both_ways(p.read_latency_ns, p.write_latency_ns),
          both_ways(p.read_bandwidth_mbps, p.write_bandwidth_mbps)};
}

// Dense ranks of keys (smaller key → smaller rank), grouped by `same_band`.
template <typename Key>
std::map<unsigned, unsigned> dense_rank(const std::map<unsigned, Key>& keys,
                                        const std::function<bool(Key, Key)>& same_band) {
  std::vector<Key> sorted;
  sorted.reserve(keys.size());
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
  // Reference: mean local figures of the DRAM nodes with CPUs (the kernel uses
  // its default DRAM tier the same way). HBM nodes with CPUs are no reference.
  auto reference_of = [&](bool dram_only) {
    Figures sum;
    int latency_count = 0, bandwidth_count = 0;
    for (const auto& node : nodes) {
      if (node.cpus.empty() || (dram_only && node.kind != MemoryKind::dram)) continue;
      const NodePerf* local = best_perf_for_target(perf, node.id);
      if (local == nullptr || local->initiator != node.id) continue;
      Figures f = figures_of(*local);
      if (f.latency) {
        sum.latency = sum.latency.value_or(0) + *f.latency;
        ++latency_count;
      }
      if (f.bandwidth) {
        sum.bandwidth = sum.bandwidth.value_or(0) + *f.bandwidth;
        ++bandwidth_count;
      }
    }
    if (sum.latency) *sum.latency /= latency_count;
    if (sum.bandwidth) *sum.bandwidth /= bandwidth_count;
    return sum;
  };
  Figures reference = reference_of(true);
  if (!reference.latency && !reference.bandwidth) reference = reference_of(false);

  std::map<unsigned, double> result;
  for (const auto& node : nodes) {
    const NodePerf* best = best_perf_for_target(perf, node.id);
    if (best == nullptr) continue;
    Figures f = figures_of(*best);
    double ratio_sum = 0;
    int ratios = 0;
    if (f.latency && reference.latency) {
      ratio_sum += *f.latency / *reference.latency;
      ++ratios;
    }
    if (f.bandwidth && reference.bandwidth) {
      ratio_sum += *reference.bandwidth / *f.bandwidth;
      ++ratios;
    }
    if (ratios > 0) result[node.id] = kDramAbstractDistance * ratio_sum / ratios;
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
    return !ranked.empty() && std::all_of(ranked.begin(), ranked.end(), [&](const TierEvidence* e) {
      return (e->*member).has_value();
    });
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
    for (auto* e : ranked)
      keys[e->node] = std::lround(std::floor(*e->abstract_distance / kTierChunk));
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

std::vector<std::string> tier_consistency_warnings(
    const std::vector<Node>& nodes, const std::map<unsigned, double>& abstract_distance) {
  std::vector<std::string> warnings;
  auto hmat_tier = [&](unsigned node) -> std::optional<long> {
    auto it = abstract_distance.find(node);
    if (it == abstract_distance.end()) return std::nullopt;
    return std::lround(std::floor(it->second / kTierChunk));
  };
  const bool any_hmat = !abstract_distance.empty();
  for (const auto& node : nodes) {
    if (!node.cpus.empty() || !node.kernel_memory_tier || node.memory_total_bytes == 0) continue;
    const std::string name = "node" + std::to_string(node.id) + " (" + to_string(node.kind) + ")";
    if (!hmat_tier(node.id) && any_hmat) {
      warnings.push_back(name + " has no HMAT figures: its kernel tier memory_tier" +
                         std::to_string(*node.kernel_memory_tier) +
                         " is the kernel's default guess, not a measurement; check it with "
                         "`tierctl bench` or set a tier override");
      continue;
    }
    for (const auto& dram : nodes) {
      if (dram.cpus.empty() || dram.kernel_memory_tier != node.kernel_memory_tier) continue;
      auto slow = hmat_tier(node.id);
      auto fast = hmat_tier(dram.id);
      if (slow && fast && *slow > *fast) {
        warnings.push_back(name + " shares kernel tier memory_tier" +
                           std::to_string(*node.kernel_memory_tier) + " with node" +
                           std::to_string(dram.id) +
                           " although HMAT ranks it slower: the kernel will not demote to it");
        break;
      }
    }
  }
  for (const auto& a : nodes) {
    for (const auto& b : nodes) {
      auto ta = hmat_tier(a.id), tb = hmat_tier(b.id);
      if (!a.kernel_memory_tier || !b.kernel_memory_tier || !ta || !tb) continue;
      if (*a.kernel_memory_tier<*b.kernel_memory_tier&& * ta> * tb) {
        warnings.push_back("kernel ranks node" + std::to_string(a.id) + " above node" +
                           std::to_string(b.id) + " but HMAT ranks it below");
      }
    }
  }
  return warnings;
}

}  // namespace tier
