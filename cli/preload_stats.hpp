// `tierctl stats --pid`: the per-node bytes libtierpreload.so placed in a
// process, read from its statistics mapping ("/memfd:tier-preload" in
// /proc/PID/maps, through /proc/PID/mem). Layout: preload/tp_stats_layout.h.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "tier/posix/sysroot.hpp"

namespace tierctl {

struct PreloadNodeStats {
  unsigned node = 0;
  std::uint64_t bytes = 0, count = 0, allocations = 0, allocated_bytes = 0;
};

struct PreloadStats {
  std::string policy;
  std::uint64_t fallbacks = 0, unplaced_bytes = 0;
  std::vector<PreloadNodeStats> nodes;  // nodes with allocations only
};

/// The start address and length of the mapping in /proc/PID/maps text.
std::optional<std::pair<std::uint64_t, std::uint64_t>> find_preload_mapping(std::string_view maps);
/// Decodes the mapping's bytes; nullopt when the magic or version differ.
std::optional<PreloadStats> parse_preload_stats(std::string_view bytes);
/// nullopt when the library is not loaded in `pid` (or not readable).
std::optional<PreloadStats> read_preload_stats(const tier::SysRoot& root, int pid);

/// Adds "preload" to a process's JSON document (doc != nullptr), or prints
/// the section under its text report; nothing when the library is absent.
void report_preload_stats(const tier::SysRoot& root, int pid, boost::json::object* doc,
                          std::ostream& out);

}  // namespace tierctl
