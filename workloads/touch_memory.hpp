// tier-touch's and tier-fragment's memory tricks (workloads/tier-touch.cpp,
// tier-fragment.cpp): a paced fill that stops above a node's free-memory
// level, pages pinned by vmsplice so that move_pages(2) and compaction
// cannot migrate them, pages' physical frames; and the option values and
// nodemasks both programs take.
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

/// Physical frame numbers of the resident pages [base, base + pages * 4 KiB)
/// from /proc/self/pagemap (one read; the kernel shows frame numbers to
/// CAP_SYS_ADMIN only): 0 for a page not present or not shown, and an empty
/// vector when the pagemap cannot be read.
std::vector<std::uint64_t> frames_of(const char* base, std::size_t pages);

/// A decimal or 0x number; with `suffixes`, K, M or G (KiB, MB, ...) may
/// follow. False on anything else, a sign, or overflow.
bool parse_u64(const char* text, std::uint64_t& out, bool suffixes);

/// A nodemask for mbind(2): kMaskBits bits in unsigned longs.
using NodeMask = std::vector<unsigned long>;
inline constexpr std::size_t kMaskBits = 1024;
/// Sets node's bit (node < kMaskBits).
void add_node(NodeMask& mask, int node);
/// The mask of one node.
NodeMask mask_of(int node);

}  // namespace tier_workloads
