// Residency totals: how many bytes of a process are on each NUMA node, from
// the kernel's own page-table walk (/proc/PID/numa_maps), without asking for
// each page.
//
// scan_residency() (residency.hpp) reads smaps and then queries every page
// with move_pages, which is what `tierctl stats`/`migrate` need (per mapping,
// THP counts, page lists). A caller that wants only the per-node totals, as
// tierd does for every workload every epoch, pays one read here instead:
// measured on the host for 512 MiB of 4 KiB pages 2.0 ms against 2.1 ms of
// smaps plus 6.6 ms of move_pages; with THP 0.1 ms against 5 ms
// (docs/benchmarks.md, "Residency scans").
//
// The figures are the ones scan_residency() sums: present pages per node (4
// KiB, THP counted in 4 KiB pages, hugetlb pages at their size), each
// mapping's pages counted once per mapping; [vdso]/[vvar] list no pages.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

#include "tier/posix/sysroot.hpp"

namespace tier {

/// node → bytes summed over numa_maps text (parse_numa_maps()).
std::map<unsigned, std::uint64_t> numa_maps_bytes_by_node(std::string_view numa_maps);

/// node → bytes of `pid`, from /proc/PID/numa_maps under `root`; nullopt when
/// the process is gone or its numa_maps cannot be read.
std::optional<std::map<unsigned, std::uint64_t>> resident_bytes_by_node(const SysRoot& root,
                                                                        int pid);

}  // namespace tier
