// Human-readable rendering of a Topology for `tierctl topo`.
#pragma once

#include <ostream>

#include "tier/topology.hpp"

namespace tierctl {

void render_nodes(std::ostream& out, const tier::Topology& topology);
void render_distances(std::ostream& out, const tier::Topology& topology);
void render_perf(std::ostream& out, const tier::Topology& topology);
void render_devices(std::ostream& out, const tier::Topology& topology);

}  // namespace tierctl
