#include "placement/one_tier.hpp"

#include <set>

namespace tierd {

std::string one_tier_note(const tier::Topology& topology) {
  std::set<unsigned> tiers;
  std::string nodes;
  for (const tier::Node& node : topology.nodes()) {
    if (node.memory_total_bytes == 0) continue;  // a CPU-only node holds no pages
    tiers.insert(node.tier);
    nodes += (nodes.empty() ? "" : ",") + std::to_string(node.id);
  }
  if (tiers.size() > 1) return "";
  if (tiers.empty()) return "no node has memory: nothing to place";
  return "every memory node (" + nodes + ") is in tier " + std::to_string(*tiers.begin()) +
         ": no slower memory to demote to and no faster memory to promote to";
}

}  // namespace tierd
