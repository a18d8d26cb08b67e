#include "tier/heat/selection.hpp"

#include <algorithm>

#include "tier/heat/sources.hpp"

namespace tier::heat {

namespace {

using Probe = SourceAvailability (*)(const SysRoot&);
using Factory = std::unique_ptr<HeatSource> (*)(const SourceOptions&);

struct Entry {
  std::string_view name;
  Probe probe;
  Factory make;
};

const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = {
      {"pmu", &pmu_availability, &make_pmu_source},
      {"bpf-fault", &bpf_fault_availability, &make_bpf_fault_source},
      {"damon", &damon_availability, &make_damon_source},
      {"soft-dirty", &soft_dirty_availability, &make_soft_dirty_source},
      {"idle-page", &idle_page_availability, &make_idle_page_source},
      {"perf-fault", &perf_fault_availability, &make_perf_fault_source},
  };
  return entries;
}

std::string names_list() {
  std::string out;
  for (const auto& e : registry()) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

std::vector<std::string> split_commas(std::string_view spec) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= spec.size()) {
    auto comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    parts.emplace_back(spec.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

const SourceInfo* find_probe(const std::vector<SourceInfo>& probes, std::string_view name) {
  auto it = std::find_if(probes.begin(), probes.end(),
                         [&](const SourceInfo& p) { return p.name == name; });
  return it == probes.end() ? nullptr : &*it;
}

}  // namespace

const std::vector<std::string_view>& source_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const auto& e : registry()) out.push_back(e.name);
    return out;
  }();
  return names;
}

std::vector<SourceInfo> probe_sources(const SysRoot& root) {
  // Page faults are access samples only while the balancing scan turns
  // accesses into hint faults; otherwise they are allocations.
  const auto balancing = root.read_int("/proc/sys/kernel/numa_balancing");
  std::vector<SourceInfo> out;
  for (const auto& e : registry()) {
    SourceInfo info{std::string(e.name), e.probe(root), {}};
    if (e.name == "bpf-fault" && info.availability.available && balancing.value_or(0) == 0) {
      info.auto_note = "auto skips it while NUMA balancing is off";
    }
    out.push_back(std::move(info));
  }
  return out;
}

AutoPick explain_auto(const std::vector<SourceInfo>& probes) {
  auto passed_over = [](const SourceInfo& p) {
    return p.name + ": " + (p.auto_note.empty() ? p.availability.reason : p.auto_note);
  };
  std::string skipped;
  for (const auto& p : probes) {
    if (p.availability.available && p.auto_note.empty()) {
      if (skipped.empty()) return {p.name, "the first source in auto order"};
      return {p.name, "the first usable source in auto order; passed over " + skipped};
    }
    skipped += (skipped.empty() ? "" : "; ") + passed_over(p);
  }
  std::string why;
  for (const auto& p : probes) why += "\n  " + passed_over(p);
  throw SourceError("no heat source is available on this machine:" + why);
}

std::vector<std::string> choose_sources(std::string_view spec,
                                        const std::vector<SourceInfo>& probes) {
  if (spec.empty() || spec == "auto") return {explain_auto(probes).source};
  auto names = split_commas(spec);
  if (names.size() > 2) {
    throw UnknownSourceError("--source '" + std::string(spec) +
                             "': at most two sources (a primary and a cross-check)");
  }
  if (names.size() == 2 && names[0] == names[1]) {
    throw UnknownSourceError("--source '" + std::string(spec) + "': the two sources must differ");
  }
  for (const auto& name : names) {
    const SourceInfo* p = find_probe(probes, name);
    if (p == nullptr) {
      throw UnknownSourceError("unknown heat source '" + name + "' (sources: " + names_list() +
                               ", or auto)");
    }
    if (!p->availability.available) {
      throw SourceError("heat source " + name + " is not available: " + p->availability.reason);
    }
  }
  return names;
}

std::unique_ptr<HeatSource> make_source(std::string_view name, const SourceOptions& options) {
  for (const auto& e : registry()) {
    if (e.name == name) return e.make(options);
  }
  throw UnknownSourceError("unknown heat source '" + std::string(name) +
                           "' (sources: " + names_list() + ")");
}

}  // namespace tier::heat
