// Printing simulator results: a per-epoch table and summary for people, one
// JSON document for scripts (docs/simulator.md, "CLI").
#pragma once

#include <boost/json.hpp>
#include <iosfwd>

#include "tier/sim/simulator.hpp"

namespace tier::sim {

/// EPOCH FAST% ORACLE% LAT_NS MIGRATED PINGPONG FAILED DROPPED REGIONS, one row per
/// epoch (every `every`-th epoch and the last when every > 1).
void print_epochs(std::ostream& out, const std::vector<EpochReport>& epochs, std::size_t every = 1);
void print_summary(std::ostream& out, const Summary& summary);

boost::json::object to_json(const EpochReport& epoch);
boost::json::object to_json(const Summary& summary);
/// {"epochs": [...], "summary": {...}}
boost::json::object to_json(const SimResult& result);

}  // namespace tier::sim
