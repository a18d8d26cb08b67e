// The heat-source availability list, as `tierctl heat --list-sources` and
// `tierctl doctor` show it (text table and JSON array).
#pragma once

#include <boost/json.hpp>
#include <ostream>
#include <vector>

#include "tier/heat/selection.hpp"

namespace tierctl {

/// [{"name","available","reason"[,"auto_note"]}] in auto order.
boost::json::array heat_sources_json(const std::vector<tier::heat::SourceInfo>& probes);
/// SOURCE / AVAIL / REASON table in auto order.
void print_heat_sources(std::ostream& out, const std::vector<tier::heat::SourceInfo>& probes);

}  // namespace tierctl
