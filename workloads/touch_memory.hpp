// tier-touch's and tier-fragment's memory tricks (workloads/tier-touch.cpp,
// tier-fragment.cpp): a paced fill that stops above a node's free-memory
// level, pages pinned by vmsplice so that move_pages(2) and compaction
// cannot migrate them, and a page's physical frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tier_workloads {

inline constexpr std::size_t kPage = 4096;

/// Node NODE's MemFree in bytes (sysfs meminfo), 0 when unreadable.
std::uint64_t node_free_bytes(int node);

/// Writes pages [0, pages) with `write_page(page address, index)`, at most
/// `mbps` MiB/s (0: unpaced); with `leave_free`, stops once the node's free
/// memory is at or under it. Returns the pages written.
std::size_t fill(char* base, std::size_t pages, int node, std::uint64_t leave_free,
                 std::uint64_t mbps, const std::function<void(char*, std::size_t)>& write_page);

/// Pins `fraction` of the pages with vmsplice into pipes (counted in
/// `pinned`); returns the pipes' ends, to stay open until exit. Exits the
/// process with a message when a pipe or vmsplice fails.
std::vector<int> pin_pages(char* base, std::size_t pages, double fraction, std::size_t& pinned);

/// Pins each page of `pages` (4 KiB page addresses) the same way.
std::vector<int> pin_page_list(const std::vector<char*>& pages);

/// Physical frame number of the resident page at `page` (/proc/self/pagemap;
/// the kernel shows frame numbers to CAP_SYS_ADMIN only), 0 when not present
/// or not shown.
std::uint64_t frame_of(const char* page);

}  // namespace tier_workloads
