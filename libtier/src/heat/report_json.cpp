#include "tier/heat/report_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tier/heat/empty_reason.hpp"

namespace tier::heat {

namespace {

// The cross-NUMA cells sum the samples' weights, whole numbers of accesses
// (AccessSample::weight): counts, written as integers (docs/cli.md).
std::uint64_t access_count(double weight) {
  return static_cast<std::uint64_t>(std::llround(weight));
}

}  // namespace

boost::json::array heat_sources_json(const std::vector<tier::heat::SourceInfo>& probes) {
  boost::json::array out;
  for (const auto& p : probes) {
    boost::json::object o{{"name", p.name},
                          {"available", p.availability.available},
                          {"reason", p.availability.reason}};
    if (!p.auto_note.empty()) o["auto_note"] = p.auto_note;
    out.push_back(std::move(o));
  }
  return out;
}

void print_heat_sources(std::ostream& out, const std::vector<tier::heat::SourceInfo>& probes) {
  std::size_t width = std::string_view("SOURCE").size();
  for (const auto& p : probes) width = std::max(width, p.name.size());
  auto pad = [](std::string_view text, std::size_t w) {
    return std::string(text) + std::string(w - text.size() + 2, ' ');
  };
  out << pad("SOURCE", width) << "AVAIL  REASON (in the order `--source auto` tries them)\n";
  for (const auto& p : probes) {
    out << pad(p.name, width) << (p.availability.available ? "yes    " : "no     ")
        << p.availability.reason << (p.auto_note.empty() ? "" : "; ") << p.auto_note << "\n";
  }
}

boost::json::object run_json(const SourceRun& run) {
  boost::json::object kinds;
  for (const auto& [kind, n] : run.kinds) kinds[kind] = n;
  boost::json::object o{{"name", run.name},
                        {"samples", run.counters.samples},
                        {"drops", run.counters.drops},
                        {"polls", run.counters.polls},
                        {"kinds", std::move(kinds)}};
  if (!run.error.empty()) o["error"] = run.error;
  if (!run.stopped_reason.empty()) o["stopped_reason"] = run.stopped_reason;
  return o;
}

boost::json::value kernel_json(const std::optional<KernelActivity>& kernel) {
  if (!kernel) return nullptr;
  boost::json::array run_time;
  for (const auto& [node, ns] : kernel->run_time_ns_by_node) {
    run_time.push_back({{"node", node}, {"ms", static_cast<double>(ns) / 1e6}});
  }
  boost::json::object by_reason;
  for (const auto& [reason, pages] : kernel->migrated_by_reason) by_reason[reason] = pages;
  return boost::json::object{{"seconds", kernel->seconds},
                             {"run_time_ms_by_node", std::move(run_time)},
                             {"run_time_hook", kernel->run_time_hook},
                             {"run_time_error", kernel->run_time_error},
                             {"migrated_pages", kernel->migrations_succeeded},
                             {"migration_failures", kernel->migrations_failed},
                             {"migrated_by_reason", std::move(by_reason)},
                             {"migrations_hook", kernel->migrations_hook},
                             {"migrations_error", kernel->migrations_error}};
}

boost::json::object report_json(const HeatReport& r, const std::vector<SourceInfo>& probes,
                                const std::vector<Fallback>& fallbacks) {
  boost::json::array fallback_list;
  for (const Fallback& f : fallbacks) {
    fallback_list.push_back({{"source", f.source}, {"error", f.error}});
  }
  const auto& primary = r.sources.front();
  boost::json::array hot, per_node, runs, matrix;
  for (const auto& h : r.hot) {
    hot.push_back({{"start", h.start}, {"end", h.end}, {"node", h.node}, {"score", h.score}});
  }
  for (const auto& n : r.per_node) per_node.push_back({{"node", n.node}, {"score", n.score}});
  for (const auto& run : r.sources) runs.push_back(run_json(run));
  for (int c = 0; c <= r.cross_numa.max_node(); ++c) {
    boost::json::array row;
    for (int m = 0; m <= r.cross_numa.max_node(); ++m) {
      row.push_back(access_count(r.cross_numa.at(c, m)));
    }
    matrix.push_back(std::move(row));
  }
  boost::json::value agreement = nullptr;
  if (r.agreement) {
    const auto& a = *r.agreement;
    agreement = boost::json::object{{"primary", a.primary},
                                    {"other", a.other},
                                    {"block_bytes", a.block_bytes},
                                    {"primary_blocks", a.primary_blocks},
                                    {"other_blocks", a.other_blocks},
                                    {"common_blocks", a.common_blocks},
                                    {"jaccard", a.jaccard},
                                    {"primary_covered", a.primary_covered},
                                    {"other_covered", a.other_covered}};
  }
  return {{"pid", r.pid},
          {"source", primary.name},
          {"samples", primary.counters.samples},
          {"drops", primary.counters.drops},
          {"duration_s", r.seconds},
          {"epochs", r.epochs},
          {"granule_bytes", r.granule_bytes},
          {"heatmap_bytes", r.heatmap_bytes},
          {"tracked_bytes", r.tracked_bytes},
          {"hot", std::move(hot)},
          {"per_node", std::move(per_node)},
          {"local_share", r.cross_numa.local_share()},
          {"remote_share", r.cross_numa.remote_share()},
          {"cross_numa",
           {{"cpu_node_x_memory_node", std::move(matrix)},
            {"local", access_count(r.cross_numa.local())},
            {"remote", access_count(r.cross_numa.remote())},
            {"unresolved", r.cross_numa.unresolved()}}},
          {"unresolved_nodes", r.unresolved_nodes},
          {"runs", std::move(runs)},
          {"agreement", agreement},
          {"kernel", kernel_json(r.kernel)},
          {"stopped_reason", r.stopped_reason},
          {"empty_reason", empty_reason(r)},
          {"fallbacks", std::move(fallback_list)},
          {"sources", heat_sources_json(probes)}};
}

}  // namespace tier::heat
