// Human-readable tables of a Topology, shared by `tierctl topo` and tierd.
#pragma once

#include <ostream>

#include "tier/topology/topology.hpp"

namespace tier {

void render_nodes(std::ostream& out, const Topology& topology);
void render_distances(std::ostream& out, const Topology& topology);
void render_perf(std::ostream& out, const Topology& topology);
void render_devices(std::ostream& out, const Topology& topology);
/// Everything above plus a title, kernel memory tiers and warnings.
void render_topology(std::ostream& out, const Topology& topology);

}  // namespace tier
