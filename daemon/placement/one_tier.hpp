// Whether placement has anything to choose between. On a machine whose
// memory nodes are all in one tier no policy can promote or demote; tierd
// says so once (log and status) instead of ticking in silence.
#pragma once

#include <string>

#include "tier/topology/topology.hpp"

namespace tierd {

/// Empty when the nodes with memory span two tiers or more; else one line
/// naming the nodes and their one tier, for the log and `status`.
std::string one_tier_note(const tier::Topology& topology);

}  // namespace tierd
