// NodeUsage: per-node memory use and the kernel's tiering counters.
//
// Contract: read_memory_snapshot() reads, through SysRoot only,
// /sys/devices/system/node/nodeN/{meminfo,numastat}, /proc/zoneinfo (the
// node's low and high watermarks) and /proc/vmstat (only the tiering counters:
// pgpromote_*, pgdemote_*, numa_*, pgmigrate_*; per node from nodeN/vmstat too). Missing files
// leave fields at zero / empty, never throw. Rates are a pure function of two snapshots and the
// elapsed seconds the caller measured, so no clock is read here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tier {

struct NodeMemory {
  unsigned node = 0;
  std::uint64_t total_bytes = 0;
  std::uint64_t free_bytes = 0;
  std::uint64_t used_bytes = 0;        // MemUsed, else total - free
  std::uint64_t file_bytes = 0;        // FilePages
  std::uint64_t anon_bytes = 0;        // AnonPages
  std::uint64_t huge_pages_total = 0;  // HugePages_Total: hugetlb pool, default size, pages
  std::uint64_t huge_pages_free = 0;
  std::uint64_t high_watermark_bytes = 0;         // sum of the zones' "high", /proc/zoneinfo
  std::uint64_t low_watermark_bytes = 0;          // ... "low": kswapd wakes below it
  std::map<std::string, std::uint64_t> meminfo;   // raw nodeN/meminfo, bytes for kB fields
  std::map<std::string, std::uint64_t> numastat;  // raw nodeN/numastat counters
  std::map<std::string, std::uint64_t> vmstat;  // nodeN/vmstat tiering counters (pgpromote_*, ...)
};

struct MemorySnapshot {
  std::vector<NodeMemory> nodes;                // sorted by node
  std::map<std::string, std::uint64_t> vmstat;  // tiering counters only
  const NodeMemory* node(unsigned id) const;
};

/// Parses "Node 0 MemTotal:  123 kB" lines into key → bytes (kB × 1024; plain
/// numbers as they are).
std::map<std::string, std::uint64_t> parse_node_meminfo(std::string_view text);
/// Parses "key value" lines (numastat, vmstat). With a non-empty filter, keeps
/// only keys starting with one of the prefixes.
std::map<std::string, std::uint64_t> parse_key_values(
    std::string_view text, const std::vector<std::string>& prefixes = {});
/// The tiering prefixes of /proc/vmstat kept in snapshots.
const std::vector<std::string>& tiering_vmstat_prefixes();
/// Node → sum over zones of the `which` watermark ("min", "low", "high"), in
/// pages, from /proc/zoneinfo.
std::map<unsigned, std::uint64_t> parse_zoneinfo_watermark(std::string_view text,
                                                           std::string_view which);

MemorySnapshot read_memory_snapshot(const SysRoot& root);
/// One node only (what the PageMover polls between batches); nullopt when the
/// node's meminfo cannot be read.
std::optional<NodeMemory> read_node_memory(const SysRoot& root, unsigned node);

/// Per-second rates of every counter in both snapshots (after − before) /
/// seconds; a counter that went backwards (reset) rates 0. seconds <= 0 → empty.
std::map<std::string, double> counter_rates(const std::map<std::string, std::uint64_t>& before,
                                            const std::map<std::string, std::uint64_t>& after,
                                            double seconds);

/// Summed tiering rates from counter_rates(): pages per second.
struct TieringRates {
  double promote_pages_per_s = 0;  // pgpromote_success
  double demote_pages_per_s = 0;   // pgdemote_{kswapd,direct,khugepaged,proactive}
  double migrate_pages_per_s = 0;  // pgmigrate_success
};
TieringRates tiering_rates(const std::map<std::string, double>& rates);

/// The same promote/demote counters as totals of one vmstat snapshot.
struct TieringCounts {
  std::uint64_t promoted_pages = 0;
  std::uint64_t demoted_pages = 0;
};
TieringCounts tiering_counts(const std::map<std::string, std::uint64_t>& vmstat);

/// cgroup v2 memory.numa_stat: stat → node → bytes.
using CgroupNumaStat = std::map<std::string, std::map<unsigned, std::uint64_t>>;
CgroupNumaStat parse_cgroup_numa_stat(std::string_view text);
/// Reads memory.numa_stat of a cgroup v2 path ("/system.slice/x.service" or a
/// full "/sys/fs/cgroup/..." path) from the v2 hierarchy (/sys/fs/cgroup or the
/// hybrid /sys/fs/cgroup/unified); nullopt when there is no v2 hierarchy or the
/// file does not exist (e.g. the memory controller is not enabled in v2).
std::optional<CgroupNumaStat> read_cgroup_numa_stat(const SysRoot& root,
                                                    std::string_view cgroup_path);

/// The PageMover's default floor for a node: max(high watermark, 2% of total).
std::uint64_t default_free_floor(const NodeMemory& node);

}  // namespace tier
