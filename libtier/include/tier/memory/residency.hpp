// Residency: which NUMA node each resident page of a process is on.
//
// Contract: scan_residency() lists the process's mappings from
// /proc/PID/smaps (falling back to /proc/PID/maps) through SysRoot, skips
// [vsyscall]/[vdso]/[vvar*], mappings with nothing resident (smaps Rss and *_Hugetlb are 0)
// and mappings outside an optional address range, then asks the kernel with
// batched move_pages(pid, n, pages, NULL, status) through MemorySyscalls.
// Pages the kernel reports -ENOENT/-EFAULT are not resident and counted apart.
//
// Page sizes: a hugetlb mapping (smaps KernelPageSize > 4 kB) is queried once
// per huge page and counted at its full size. In a mapping with transparent
// huge pages (smaps AnonHugePages / FilePmdMapped > 0) every 4 KiB address is
// queried (so bytes per node are exact), and an aligned 2 MiB chunk whose 512
// pages are all resident on one node is taken as one THP, up to the number of
// THPs smaps reports for that mapping (docs/memory.md explains the limit).
//
// Cost: proportional to the virtual size of the mappings that have something
// resident, ~1 move_pages entry per 4 KiB page (docs/benchmarks.md: GiB/s),
// except for sparse mappings (sparse_mapping()): without a page list or range
// wanted they are summarised from numa_maps; with one, only the 2 MiB spans
// around their present pages are queried, found from the page tables
// (PAGEMAP_SCAN on Linux 6.7+, else the pagemap's entries: present_pages.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tier/memory/memory_syscalls.hpp"
#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"

namespace tier {

inline constexpr std::uint64_t kBasePageSize = 4096;

/// One line of /proc/PID/maps, plus the smaps fields residency needs.
struct Mapping {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::string perms;  // "rw-p"
  std::uint64_t offset = 0;
  std::uint64_t inode = 0;
  std::string path;  // "", "[heap]", "/usr/lib/...", "/anon_hugepage (deleted)"
  std::uint64_t kernel_page_size = kBasePageSize;  // smaps KernelPageSize
  std::optional<std::uint64_t> rss_bytes;          // smaps Rss; unknown from plain maps
  std::uint64_t anon_huge_bytes = 0;               // AnonHugePages
  std::uint64_t file_pmd_bytes = 0;                // FilePmdMapped
  std::uint64_t hugetlb_bytes = 0;                 // Shared_Hugetlb + Private_Hugetlb

  std::uint64_t size() const { return end - start; }
  bool hugetlb() const { return kernel_page_size > kBasePageSize; }
  bool anonymous() const { return inode == 0; }
};

/// Parses /proc/PID/maps text. Malformed lines are skipped.
std::vector<Mapping> parse_maps(std::string_view text);
/// Parses /proc/PID/smaps text: the maps header lines plus their fields.
std::vector<Mapping> parse_smaps(std::string_view text);
/// True for mappings residency never queries: [vsyscall], [vdso], [vvar*].
bool skip_mapping(const Mapping& mapping);

/// Per-node page counts of one mapping from /proc/PID/numa_maps.
struct NumaMapsEntry {
  std::map<unsigned, std::uint64_t> pages;  // node → pages of page_size
  std::uint64_t page_size = kBasePageSize;
};
/// Parses /proc/PID/numa_maps text, keyed by mapping start address.
std::map<std::uint64_t, NumaMapsEntry> parse_numa_maps(std::string_view text);

/// A mapping whose address space dwarfs what is resident (sanitizer shadow,
/// a JVM's reserved heap): querying every page would cost its virtual size.
/// Such mappings are summarised from numa_maps (the kernel walks only the
/// populated page tables) when no page list is wanted; otherwise only the
/// spans around their present pages are queried.
bool sparse_mapping(const Mapping& mapping);

/// The mappings of `pid` from /proc/PID/smaps (with RSS and page sizes), or
/// /proc/PID/maps where smaps cannot be read; nullopt when neither can.
std::optional<std::vector<Mapping>> read_mappings(const SysRoot& root, int pid);

/// The mappings of `pid` worth watching and placing: /proc/PID/smaps (so
/// sparse_mapping() can tell a sanitizer's shadow or a reserved heap, which
/// /proc/PID/maps alone cannot), without skip_mapping() and sparse ones,
/// sorted by address. Empty when the process is gone or unreadable.
std::vector<Mapping> placeable_mappings(const SysRoot& root, int pid);

/// Residency on one node.
struct NodeResidency {
  std::uint64_t bytes = 0;       // everything on the node = pages_4k * 4096 + huge_bytes
  std::uint64_t pages_4k = 0;    // pages mapped as 4 KiB pages
  std::uint64_t huge_bytes = 0;  // bytes in huge pages (hugetlb or THP)
};

struct MappingResidency {
  Mapping mapping;
  std::map<unsigned, NodeResidency> nodes;
  std::uint64_t not_resident_bytes = 0;  // queried, -ENOENT/-EFAULT
};

/// One resident page (or huge page) and its node; kept when asked (migrate).
struct ResidentPage {
  std::uint64_t address = 0;
  std::uint64_t size = kBasePageSize;
  unsigned node = 0;
};

struct ResidencyOptions {
  std::optional<std::pair<std::uint64_t, std::uint64_t>> range;  // [start, end)
  bool keep_pages = false;                                       // fill ResidencyReport::pages
  std::size_t batch_pages = 4096;                                // entries per move_pages call
};

struct ResidencyReport {
  int pid = 0;
  std::vector<MappingResidency> mappings;  // only those queried
  std::map<unsigned, NodeResidency> nodes;
  std::uint64_t not_resident_bytes = 0;
  std::uint64_t queried_pages = 0;  // move_pages entries
  std::uint64_t syscalls = 0;
  std::uint64_t page_table_scans = 0;  // sparse mappings whose present pages were looked up
  std::vector<ResidentPage> pages;     // with keep_pages
  std::vector<std::string> warnings;

  std::uint64_t resident_bytes() const;
};

/// Error the caller must handle: no such process, or its maps unreadable.
struct ResidencyError : std::runtime_error {
  using std::runtime_error::runtime_error;
  int error = 0;  // errno (ESRCH when the process is gone)
  ResidencyError(const std::string& what, int err) : std::runtime_error(what), error(err) {}
};

/// Scans a pid. Throws ResidencyError when the process has no readable maps
/// or disappears (ESRCH) during the scan.
ResidencyReport scan_residency(const SysRoot& root, MemorySyscalls& syscalls, int pid,
                               const ResidencyOptions& options = {});

/// Counts per node from a mapping list and its statuses: the pure core of
/// scan_residency(), exposed for tests. `statuses[i]` is the move_pages status
/// of the i-th queried address of `mapping` in address order.
MappingResidency summarize_mapping(const Mapping& mapping, const std::vector<int>& statuses,
                                   std::vector<ResidentPage>* pages = nullptr);

/// tier → bytes, from each node's tier in the topology; nodes the topology does
/// not know count in tier 0 and are named in the warnings.
std::map<unsigned, std::uint64_t> bytes_per_tier(const std::map<unsigned, NodeResidency>& nodes,
                                                 const Topology& topology,
                                                 std::vector<std::string>* warnings = nullptr);

}  // namespace tier
