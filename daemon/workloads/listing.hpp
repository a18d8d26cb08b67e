// Which workloads a detailed view lists when a server has more than a reader
// (or tierd's loop) can take: `status` details at most a limit of them.
// Pure: the registry's workloads and a resident-bytes figure in, pointers
// into the same vector out.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "workloads/registry.hpp"

namespace tierd {

/// Every workload when there are at most `limit`; else every one placed
/// explicitly (registered, by a rule, a watch or a pod: somebody asked for
/// it) and, in the room left under `limit`, the discovered ones with the most
/// `resident_bytes` (ties: registry order). The result keeps registry order.
std::vector<const Workload*> listed_workloads(
    const std::vector<Workload>& workloads, std::size_t limit,
    const std::function<std::uint64_t(const Workload&)>& resident_bytes);

}  // namespace tierd
