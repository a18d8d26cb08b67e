// WorkloadClass: how much a workload's latency matters, the one vocabulary
// the daemon's registry, the placement policies and the CPU pool layout share.
//
// Contract: `online` workloads are latency-sensitive (they get the fast
// memory tier first and never share a physical core with an offline one),
// `offline` workloads are batch work that yields (slower tier first), and
// `normal` is everything else, spelled "default" in config and on the wire.
// to_string() and parse_workload_class() are exact inverses.
#pragma once

#include <optional>
#include <string_view>

namespace tier {

enum class WorkloadClass { online, offline, normal };  // "online" | "offline" | "default"

/// "online", "offline" or "default".
const char* to_string(WorkloadClass c);
/// "online", "offline", "default"; nullopt otherwise.
std::optional<WorkloadClass> parse_workload_class(std::string_view text);

}  // namespace tier
