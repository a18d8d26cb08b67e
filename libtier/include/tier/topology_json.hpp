// JSON form of a Topology: schema "tier.topology/v1", documented in
// docs/topology.md. One schema for tierctl --json, tierd's API and tests.
#pragma once

#include <boost/json/value.hpp>

#include "tier/topology.hpp"

namespace tier {

inline constexpr const char* kTopologySchema = "tier.topology/v1";

boost::json::value to_json(const Topology& topology);

}  // namespace tier
