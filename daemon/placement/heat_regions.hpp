// From a process's heat to the regions a placement policy sees.
//
// tierd cuts every tracked mapping into fixed, aligned chunks (2 MiB: a huge
// page, and small enough that a 192 MiB hot set is 96 regions), totals the
// HeatMap's granule scores per chunk (a granule wider than a chunk is spread
// over it by bytes), and attaches what the HeatMap does not keep: the samples
// of the last epoch and when the chunk was last seen accessed. The node of a
// chunk comes from a sampled move_pages query (node_of_chunks): the majority
// of its resident probe pages. Pure except node_of_chunks, which asks the
// kernel through the MemorySyscalls seam.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tier/heat/heatmap.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "tier/policy/policy.hpp"

namespace tierd {

inline constexpr unsigned kChunkShift = 21;
inline constexpr std::uint64_t kChunkBytes = std::uint64_t{1} << kChunkShift;  // 2 MiB

/// What one chunk saw: samples this epoch and the time of the last one.
struct ChunkActivity {
  std::uint64_t accesses = 0;  // reset at every epoch
  double last_access_s = -1;
};

/// Chunk index (address / kChunkBytes) -> activity.
using ActivityMap = std::unordered_map<std::uint64_t, ChunkActivity>;

/// Credits one sample [addr, addr + max(length, 1)) with `weight` accesses to
/// every chunk it covers (a DAMON region's nr_accesses is per page, so each
/// chunk of the region gets all of it). Weight 0 is no evidence of access.
void record_activity(ActivityMap& activity, std::uint64_t addr, std::uint64_t length,
                     std::uint32_t weight, double now_s);

/// Starts a new epoch: this epoch's accesses go back to 0 (last access stays).
void reset_epoch(ActivityMap& activity);

/// Regions of kChunkBytes (clipped to the tracked ranges, which must be
/// sorted and disjoint) with the summed heat of `granules` (sorted by address,
/// as HeatMap::granule_scores gives them) and the chunk's activity. Nodes are
/// left -1 for node_of_chunks().
std::vector<tier::policy::Region> chunk_regions(
    pid_t pid, const std::vector<tier::heat::AddressRange>& tracked,
    const std::vector<tier::heat::HeatRange>& granules, const ActivityMap& activity);

/// Fills each region's node with the node most of its probe pages (up to
/// `probes_per_region`, evenly spaced) are on, and drops regions with no
/// resident probe page (nothing there to place). Returns false when the
/// process is gone (regions cleared).
bool node_of_chunks(tier::MemorySyscalls& syscalls, pid_t pid,
                    std::vector<tier::policy::Region>& regions, unsigned probes_per_region = 16);

}  // namespace tierd
