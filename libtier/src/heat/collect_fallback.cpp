#include "tier/heat/collector.hpp"

namespace tier::heat {

HeatReport collect_heat_with_fallback(const SysRoot& root, const Topology& topology,
                                      MemorySyscalls& syscalls, int pid,
                                      const std::vector<std::string>& chosen, bool automatic,
                                      const std::vector<SourceInfo>& probes, CollectOptions options,
                                      std::vector<Fallback>& fallbacks) {
  std::vector<std::string> candidates = chosen;
  if (automatic) {
    for (const auto& p : probes) {
      if (p.availability.available && p.auto_note.empty() && p.name != chosen.front()) {
        candidates.push_back(p.name);
      }
    }
  }
  const std::size_t attempts = automatic ? candidates.size() : 1;
  for (std::size_t i = 0;; ++i) {
    options.sources = automatic ? std::vector<std::string>{candidates[i]} : chosen;
    try {
      return collect_heat(root, topology, syscalls, pid, options);
    } catch (const SourceError& e) {
      fallbacks.push_back({options.sources.front(), e.what()});
      if (i + 1 >= attempts) throw;
    }
  }
}

}  // namespace tier::heat
