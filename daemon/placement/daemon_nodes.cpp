// The loop's side of node memory coming and going (NodeWatch): the
// topology re-read when a node gains or loses memory blocks, and what status
// says about it.
#include <boost/json.hpp>
#include <ctime>

#include "daemon.hpp"
#include "log.hpp"
#include "placement/one_tier.hpp"
#include "unix_clock.hpp"

namespace tierd {

namespace {

// "tier 0: 0,1; tier 1: 4; tier 2: 2,3": the ranks after a re-read.
std::string tiers_text(const tier::Topology& topology) {
  std::map<unsigned, std::string> by_tier;
  for (const tier::Node& node : topology.nodes()) {
    std::string& nodes = by_tier[node.tier];
    nodes += (nodes.empty() ? "" : ",") + std::to_string(node.id);
  }
  std::string text;
  for (const auto& [rank, nodes] : by_tier) {
    text += (text.empty() ? "tier " : "; tier ") + std::to_string(rank) + ": " + nodes;
  }
  return text;
}

}  // namespace

tier::Topology load_topology(const Config& config) {
  tier::TopologyOptions topo_options;
  topo_options.root = tier::SysRoot(config.topology_root);
  topo_options.tier_override = config.tier_override;
  return tier::load_topology(topo_options);
}

std::string topology_summary(const tier::Topology& topology) {
  return std::to_string(topology.nodes().size()) + " node(s), " +
         std::to_string(topology.memory_tiers().size()) + " memory tier(s)";
}

Daemon::WatchedTopology Daemon::read_watched_topology(const Config& config) const {
  const tier::SysRoot root(config.topology_root);
  WatchedTopology read;
  // Memory first: a change between the two reads shows in the next epoch's
  // comparison (one more re-read) instead of going unseen.
  read.memory = tier::read_memory_snapshot(root);
  read.block_bytes = memory_block_bytes(root);
  read.topology = std::make_shared<const tier::Topology>(load_topology(config));
  return read;
}

void Daemon::follow_node_memory() {
  const std::vector<std::string> changes = node_watch_.changes(*memory_);
  if (changes.empty()) return;
  for (const std::string& change : changes) log::warn() << "topology: " << change;
  try {
    WatchedTopology read = read_watched_topology(config_);
    log::info() << "topology: re-read after node memory changed: "
                << topology_summary(*read.topology) << " (was " << topology_summary(*topology_)
                << "); " << tiers_text(*read.topology);
    topology_ = std::move(read.topology);
    node_watch_.reset(read.memory, read.block_bytes);
    one_tier_note_ = one_tier_note(*topology_);
    one_tier_logged_ = false;
    configure_discovery();  // a second tier came (or the last one went)
  } catch (const std::exception& e) {
    // The ranks stay those read before; this memory is the new baseline so
    // the same change is not reported every epoch. Nodes without memory are
    // still no target (node_states()).
    log::error() << "topology: re-read after node memory changed failed, keeping the ranks read "
                    "before: "
                 << e.what();
    node_watch_.reset(*memory_, memory_block_bytes(tier::SysRoot(config_.topology_root)));
  }
  ++topology_changes_;
  metrics_->record_topology_change();
  last_topology_change_ = TopologyChange{changes, topology_summary(*topology_), unix_now()};
}

boost::json::value Daemon::topology_change_json() const {
  if (!last_topology_change_) return nullptr;
  boost::json::array nodes;
  for (const std::string& line : last_topology_change_->nodes)
    nodes.push_back(boost::json::string(line));
  return boost::json::object{{"nodes", std::move(nodes)},
                             {"topology", last_topology_change_->topology},
                             {"unix_s", last_topology_change_->unix_s}};
}

}  // namespace tierd
