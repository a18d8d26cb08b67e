// Loaded-latency sweep, internal to libtier/src/bench.
#pragma once

#include <optional>
#include <vector>

#include "internal.hpp"
#include "tier/bench/bench.hpp"

namespace tier::bench::detail {

/// Injection delays of the sweep, "no load" (nullopt) first, then 0 last (max load).
const std::vector<std::optional<std::uint64_t>>& loaded_delays();

/// `chase` must hold a built chain; `load` is the buffer the loaders read.
/// Uses threads-1 loaders; with threads <= 1 only the no-load point is measured.
std::vector<LoadedPoint> loaded_sweep(const NodeBuffer& chase, const NodeBuffer& load,
                                      const CpuList& cpus, int threads, std::size_t loads);

}  // namespace tier::bench::detail
