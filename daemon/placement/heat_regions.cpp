#include "heat_regions.hpp"

#include <algorithm>
#include <cerrno>
#include <map>

namespace tierd {

namespace {

constexpr std::uint64_t kPage = 4096;

}  // namespace

void record_activity(ActivityMap& activity, std::uint64_t addr, std::uint64_t length,
                     std::uint32_t weight, double now_s) {
  if (weight == 0) return;
  const std::uint64_t last = length <= 1 ? addr : addr + (length - 1);
  if (last < addr) return;  // wraps: not a real mapping
  for (std::uint64_t chunk = addr / kChunkBytes; chunk <= last / kChunkBytes; ++chunk) {
    ChunkActivity& a = activity[chunk];
    a.accesses += weight;
    a.last_access_s = std::max(a.last_access_s, now_s);
  }
}

void reset_epoch(ActivityMap& activity) {
  for (auto& [chunk, a] : activity) a.accesses = 0;
}

std::vector<tier::policy::Region> chunk_regions(
    pid_t pid, const std::vector<tier::heat::AddressRange>& tracked,
    const std::vector<tier::heat::HeatRange>& granules, const ActivityMap& activity) {
  std::vector<tier::policy::Region> regions;
  auto granule = granules.begin();
  for (const tier::heat::AddressRange& range : tracked) {
    for (std::uint64_t start = range.start; start < range.end;) {
      const std::uint64_t chunk = start / kChunkBytes;
      const std::uint64_t end = std::min(range.end, (chunk + 1) * kChunkBytes);
      tier::policy::Region r;
      r.pid = pid;
      r.start = start;
      r.end = end;
      // Granules are sorted: skip those wholly before this region, then add
      // the overlap of each one that touches it (spread by bytes).
      while (granule != granules.end() && granule->end <= start) ++granule;
      for (auto g = granule; g != granules.end() && g->start < end; ++g) {
        const std::uint64_t from = std::max(g->start, start);
        const std::uint64_t to = std::min(g->end, end);
        if (to <= from) continue;
        r.heat +=
            g->score * static_cast<double>(to - from) / static_cast<double>(g->end - g->start);
      }
      if (auto found = activity.find(chunk); found != activity.end()) {
        r.accesses = found->second.accesses;
        r.last_access_s = found->second.last_access_s;
      }
      regions.push_back(r);
      start = end;
    }
  }
  return regions;
}

bool node_of_chunks(tier::MemorySyscalls& syscalls, pid_t pid,
                    std::vector<tier::policy::Region>& regions, unsigned probes_per_region) {
  probes_per_region = std::max(1u, probes_per_region);
  std::vector<void*> pages;
  std::vector<std::size_t> owner;  // region index of each probe
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const tier::policy::Region& r = regions[i];
    const std::uint64_t count = std::max<std::uint64_t>(1, (r.end - r.start) / kPage);
    const std::uint64_t step = std::max<std::uint64_t>(1, count / probes_per_region) * kPage;
    for (std::uint64_t a = r.start & ~(kPage - 1); a < r.end; a += step) {
      pages.push_back(reinterpret_cast<void*>(a));
      owner.push_back(i);
    }
  }
  std::vector<int> status(pages.size(), -1);
  // One call per 16 Ki probes: move_pages takes any count, but a bounded
  // batch keeps the kernel's temporary arrays small.
  constexpr std::size_t kBatch = 16384;
  for (std::size_t done = 0; done < pages.size(); done += kBatch) {
    const std::size_t n = std::min(kBatch, pages.size() - done);
    const long rc = syscalls.move_pages(static_cast<int>(pid), n, pages.data() + done, nullptr,
                                        status.data() + done, 0);
    if (rc < 0) {
      if (errno == ESRCH) {
        regions.clear();
        return false;
      }
      std::fill(status.begin() + static_cast<std::ptrdiff_t>(done),
                status.begin() + static_cast<std::ptrdiff_t>(done + n), -1);
    }
  }
  std::vector<std::map<int, unsigned>> votes(regions.size());
  for (std::size_t p = 0; p < pages.size(); ++p) {
    if (status[p] >= 0) ++votes[owner[p]][status[p]];
  }
  std::vector<tier::policy::Region> resident;
  resident.reserve(regions.size());
  for (std::size_t i = 0; i < regions.size(); ++i) {
    if (votes[i].empty()) continue;
    auto best = std::max_element(votes[i].begin(), votes[i].end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    regions[i].node = best->first;
    resident.push_back(regions[i]);
  }
  regions = std::move(resident);
  return true;
}

}  // namespace tierd
