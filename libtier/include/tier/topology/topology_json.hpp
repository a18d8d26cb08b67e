// JSON form of a Topology: schema "tier.topology/v1", documented in
// docs/topology.md. One schema for tierctl --json, tierd's API and tests.
#pragma once

#include <boost/json/value.hpp>

#include "tier/topology/topology.hpp"

namespace tier {

inline constexpr const char* kTopologySchema = "tier.topology/v1";

boost::json::value to_json(const Topology& topology);

/// The inverse of to_json(), for documents from tierd. Throws
/// std::invalid_argument naming the first field that is missing or mistyped.
Topology topology_from_json(const boost::json::value& document);

}  // namespace tier
