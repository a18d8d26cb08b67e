// JSON (and text) forms of heat results shared by `tierctl heat`, `tierctl
// doctor` and tierd's `heat` method, so all three print the same document
// (docs/cli.md describes it).
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <ostream>
#include <vector>

#include "tier/heat/collector.hpp"
#include "tier/heat/selection.hpp"

namespace tier::heat {

/// [{"name","available","reason"[,"auto_note"]}] in auto order.
boost::json::array heat_sources_json(const std::vector<SourceInfo>& probes);
/// SOURCE / AVAIL / REASON table in auto order.
void print_heat_sources(std::ostream& out, const std::vector<SourceInfo>& probes);

boost::json::object run_json(const SourceRun& run);
boost::json::value kernel_json(const std::optional<KernelActivity>& kernel);
/// The whole `tierctl heat --json` document.
/// `fallbacks`: sources `auto` tried first that failed to start.
boost::json::object report_json(const HeatReport& report, const std::vector<SourceInfo>& probes,
                                const std::vector<Fallback>& fallbacks);

}  // namespace tier::heat
