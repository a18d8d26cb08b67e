#include "workloads/listing.hpp"

#include <algorithm>
#include <utility>

namespace tierd {

std::vector<const Workload*> listed_workloads(
    const std::vector<Workload>& workloads, std::size_t limit,
    const std::function<std::uint64_t(const Workload&)>& resident_bytes) {
  std::vector<const Workload*> listed;
  if (workloads.size() <= limit) {
    for (const Workload& workload : workloads) listed.push_back(&workload);
    return listed;
  }
  std::vector<bool> keep(workloads.size(), false);
  std::vector<std::pair<std::uint64_t, std::size_t>> discovered;  // resident bytes, index
  std::size_t kept = 0;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    if (workloads[i].source == WorkloadSource::discovered) {
      discovered.emplace_back(resident_bytes(workloads[i]), i);
    } else {
      keep[i] = true;
      ++kept;
    }
  }
  const std::size_t take = std::min(kept < limit ? limit - kept : 0, discovered.size());
  const auto largest_first = [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  std::partial_sort(discovered.begin(), discovered.begin() + static_cast<std::ptrdiff_t>(take),
                    discovered.end(), largest_first);
  for (std::size_t k = 0; k < take; ++k) keep[discovered[k].second] = true;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    if (keep[i]) listed.push_back(&workloads[i]);
  }
  return listed;
}

}  // namespace tierd
