// Shared machinery of the placement policies: the free-memory ledger a plan
// draws on, node choice by latency, the migration budget, and per-region
// move history for anti-thrash. Pure: everything comes from the Snapshot.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tier/policy/policy.hpp"

namespace tier::policy {

inline constexpr double kMiB = 1024.0 * 1024.0;

/// Free bytes per node as the plan so far leaves them, and the watermarks
/// a policy keeps: `low` (start demoting under it) and `high` (promote only
/// while staying above it), each max(kernel high watermark, pct of total).
class NodeLedger {
 public:
  NodeLedger(const Snapshot& snapshot, double low_free_pct, double high_free_pct);

  bool known(unsigned node) const { return nodes_.contains(node); }
  std::uint64_t free(unsigned node) const;
  std::uint64_t low(unsigned node) const;
  std::uint64_t high(unsigned node) const;
  unsigned tier(unsigned node) const;
  /// Room for `bytes` on `node` keeping it at or above its high watermark.
  bool fits_above_high(unsigned node, std::uint64_t bytes) const;
  bool below_low(unsigned node) const { return free(node) < low(node); }
  /// Free bytes above the high watermark (0 when at or under it).
  std::uint64_t room_above_high(unsigned node) const {
    return free(node) > high(node) ? free(node) - high(node) : 0;
  }
  /// Books a move: `bytes` leave `from` (when known) and land on `to`.
  void move(int from, unsigned to, std::uint64_t bytes);
  std::vector<unsigned> nodes_of_tier(unsigned tier) const;
  /// The lowest tier rank any node has (the fast tier); 0 without nodes.
  unsigned fastest_tier() const;
  /// Every node id, ascending.
  std::vector<unsigned> nodes() const;

 private:
  struct Entry {
    NodeState state;
    std::int64_t free = 0;
    std::uint64_t low = 0, high = 0;
  };
  std::map<unsigned, Entry> nodes_;
};

/// Latency in ns from `cpu_node` to memory `node`; when the snapshot has no
/// matrix, a tier-based stand-in (100 ns + 100 ns per tier) keeps ordering.
double latency_ns(const Snapshot& snapshot, const NodeLedger& ledger, int cpu_node, unsigned node);

/// The workload's main CPU node, or the first node with CPUs, or 0.
int home_cpu_node(const Snapshot& snapshot, const WorkloadState& workload);

/// Nodes of `tier` sorted by latency from `cpu_node` (nearest first).
std::vector<unsigned> nearest_of_tier(const Snapshot& snapshot, const NodeLedger& ledger,
                                      int cpu_node, unsigned tier);

/// `nodes` less those the workload may not use (WorkloadState::allowed_nodes;
/// none listed = every node), order kept.
std::vector<unsigned> allowed_only(const std::vector<unsigned>& nodes, const WorkloadState& w);

/// Bytes this tick may move: min over the declared cap and the snapshot's
/// budget (each 0 = unlimited) × tick. nullopt = unlimited.
class Budget {
 public:
  Budget(double policy_mbps, double snapshot_mbps, double tick_s);
  /// At most `policy_bytes` (nullopt = no cap of the policy's own, e.g. a
  /// token bucket's balance) and the snapshot's budget × tick.
  Budget(std::optional<std::uint64_t> policy_bytes, double snapshot_mbps, double tick_s);
  bool allows(std::uint64_t bytes) const { return !left_ || bytes <= *left_; }
  /// Bytes left this tick; nullopt = unlimited.
  std::optional<std::uint64_t> remaining() const { return left_; }
  void spend(std::uint64_t bytes);

 private:
  std::optional<std::uint64_t> left_;
};

/// When memory last moved and how often, per 2 MiB block of each process:
/// regions come and go with the heat map's granules and splits, blocks stay
/// put, so a region is judged by the blocks it covers — by the 64 KiB parts
/// of them that moved, so that regions smaller than a block do not hold
/// their neighbours. A block that moved
/// `bounce_limit` times within `backoff_s` is held for `backoff_s` after its
/// last move; any moved block rests `min_residency_s` unless the caller
/// waives the rest (the policy's evidence is unambiguous). Held blocks stay;
/// the rest of a region around them may move. Hashed by (pid, block): a tick
/// asks about up to every region it may move, and the history holds only
/// recently moved blocks.
class MoveHistory {
 public:
  void configure(double min_residency_s, double backoff_s, unsigned bounce_limit);
  /// The first part of `region` with no held block: from its start, or from
  /// the first block after held ones, to the next held block. nullopt when
  /// every block is held.
  std::optional<Region> movable_part(const Region& region, double now_s,
                                     bool waive_residency = false) const;
  void record(const Region& region, double now_s);
  /// Forgets moves older than the window (bounded memory), in the order they
  /// were recorded: the cost is the number forgotten, not the history's size.
  void expire(double now_s);

 private:
  struct Move {
    double time;
    std::uint32_t parts;  // the 64 KiB parts of the block it moved
  };
  struct Entry {
    std::vector<Move> moves;  // oldest first, within the window
  };
  struct Key {
    pid_t pid;
    std::uint64_t block;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      // splitmix64 finaliser over both halves: blocks are consecutive.
      std::uint64_t x = k.block * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(k.pid);
      x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
      x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
      return static_cast<std::size_t>(x ^ (x >> 31));
    }
  };
  static constexpr std::uint64_t kBlock = std::uint64_t{2} << 20;
  static constexpr std::uint64_t kPart = kBlock / 32;
  /// The parts of `block` that [start, end) covers.
  static std::uint32_t parts_of(std::uint64_t block, std::uint64_t start, std::uint64_t end);
  template <typename Visit>
  bool any_block(const Region& region, Visit visit) const;
  /// Whether the `parts` of a block are held by its moves.
  bool held(const Entry& entry, std::uint32_t parts, double now_s, bool waive_residency) const;
  std::unordered_map<Key, Entry, KeyHash> entries_;
  std::deque<std::pair<double, Key>> recorded_;  // (time, block) of each move, oldest first
  double min_residency_s_ = 0, backoff_s_ = 0;
  unsigned bounce_limit_ = 0;
};

}  // namespace tier::policy
