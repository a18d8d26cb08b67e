// PageMover: moves pages of a process to a node, rate-limited, with exact
// accounting of every page.
//
// Contract: move() takes page units (a 4 KiB page, or a huge page moved as one
// unit through one address) and a target node. Per batch it first queries the
// pages' nodes (so pages already on the target are told apart from moved ones),
// checks the cancel flag and the target's free memory (never below the floor),
// waits for the token bucket, then calls move_pages(MPOL_MF_MOVE). Units the
// process's own memory policy keeps off the target (MoveOptions::policy) are
// never attempted. Every unit
// ends in exactly one bucket of MoveCounts; units never attempted because the
// move stopped early are `skipped` (or `process_gone` when the process exited).
// Never throws for kernel errors: they become counts and a StopReason.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tier/memory/memory_policy.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier {

/// Token bucket in bytes: refills at `rate` bytes/s up to `capacity`. Starts
/// empty, so the first batch already waits and the achieved rate does not
/// exceed the limit. Pure: time is passed in.
class TokenBucket {
 public:
  TokenBucket(double rate_bytes_per_s, double capacity_bytes);
  /// Takes `bytes` at time `now` (seconds, any monotonic origin) and returns
  /// how long to wait before using them (0 when tokens were available). The
  /// bucket may go into debt; the wait pays it back.
  double consume(double bytes, double now);
  /// The same bucket stepped by elapsed time instead of a clock, for a
  /// caller that counts in ticks (the `balanced` placement policy): adds
  /// `elapsed_s` (negative: 0) of rate, up to the capacity or to one step's
  /// worth if that is more (a tick longer than the capacity still earns its
  /// own accrual), and returns the balance. consume()'s clock is untouched.
  double refill(double elapsed_s);
  /// Takes `bytes` now, without a refill or a wait (the bucket may go into debt).
  void take(double bytes) { tokens_ -= bytes; }
  double rate() const { return rate_; }
  double tokens() const { return tokens_; }

 private:
  double rate_;
  double capacity_;
  double tokens_ = 0;
  std::optional<double> last_;
};

struct PageUnit {
  std::uint64_t address = 0;
  std::uint64_t size = 4096;  // bytes: 4096, or a huge page's size
  // Where the caller just saw the page (a residency scan). When every unit of
  // a batch has one, the mover trusts it instead of asking the kernel again:
  // that query costs as much as a third of the move (mover_bench scenario).
  std::optional<unsigned> node;
};

struct MoveCounts {
  std::uint64_t moved = 0;
  std::uint64_t already_there = 0;
  std::uint64_t busy = 0;          // -EBUSY, or not moved without a status
  std::uint64_t no_memory = 0;     // -ENOMEM
  std::uint64_t not_present = 0;   // -ENOENT / -EFAULT
  std::uint64_t process_gone = 0;  // ESRCH from the call
  std::uint64_t permission = 0;    // EPERM / EACCES
  std::uint64_t other = 0;
  std::uint64_t skipped = 0;  // not attempted: cancelled, low memory, fatal error
  // Not attempted: the process's own memory policy (mbind, set_mempolicy)
  // or its cpuset's mems do not let the page onto the target.
  std::uint64_t against_policy = 0;
  std::uint64_t total() const;
  MoveCounts& operator+=(const MoveCounts& more);
};

enum class StopReason { completed, cancelled, low_free_memory, process_gone, permission, error };
const char* to_string(StopReason reason);

struct MoveReport {
  std::uint64_t requested_pages = 0;  // units (a huge page is one)
  std::uint64_t requested_bytes = 0;
  MoveCounts pages;  // units
  MoveCounts bytes;  // the same buckets in bytes
  std::uint64_t syscalls = 0;
  double seconds = 0;
  double mbps = 0;  // moved bytes / seconds, in MB/s (1 MB = 2^20 bytes)
  StopReason stop_reason = StopReason::completed;
  std::string stop_detail;    // human text: errno, free memory figures
  std::string policy_detail;  // why the first unit against_policy was refused
};

struct MoveOptions {
  std::optional<double> rate_mbps;  // MB/s (2^20 bytes); empty = unlimited
  // Units per move_pages call. Every call pays lru_cache_disable() (an RCU
  // grace period) in the kernel, so large batches matter: 16384 (64 MiB of
  // 4 KiB pages) moves as fast as migrate_pages(2). Under a rate limit the
  // batch shrinks to ~100 ms worth of the rate so the limit stays smooth.
  std::size_t batch_pages = 16384;
  // Contiguous shards moved by this many threads at once (no rate limit
  // only); each needs at least kMinUnitsPerShard units. The MemorySyscalls
  // given to the PageMover must then be thread-safe (the real one is).
  std::size_t threads = 1;
  const std::atomic<bool>* cancel = nullptr;  // checked between batches
  /// Free bytes of the target node now; empty function or nullopt = unknown
  /// (no free-memory check).
  std::function<std::optional<std::uint64_t>()> free_bytes;
  std::uint64_t free_floor_bytes = 0;  // stop before free memory would go below
  std::function<double()> now;         // seconds, monotonic; default steady_clock
  std::function<void(double)> sleep;   // seconds; default this_thread::sleep_for
  /// The process's own memory policy: units it does not let onto the target
  /// are counted against_policy and never moved. Null: not checked (the
  /// caller was asked for exactly this move, as `tierctl migrate` is).
  const ProcessMemoryPolicy* policy = nullptr;
};

inline constexpr std::size_t kMinUnitsPerShard = 1024;

class PageMover {
 public:
  explicit PageMover(MemorySyscalls& syscalls) : syscalls_(syscalls) {}
  MoveReport move(int pid, const std::vector<PageUnit>& units, unsigned target_node,
                  const MoveOptions& options = {});

 private:
  MoveReport move_serial(int pid, const std::vector<PageUnit>& units, unsigned target_node,
                         const MoveOptions& options);
  MemorySyscalls& syscalls_;
};

/// MoveOptions::free_bytes and free_floor_bytes for a node of the live (or
/// --root) system: NodeUsage polling, floor = max(high watermark, 2% of node).
void watch_node_free_memory(MoveOptions& options, const SysRoot& root, unsigned node);

}  // namespace tier
