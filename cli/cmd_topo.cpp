// `tierctl topo`: nodes, kinds, tiers, distances, HMAT figures, device locality.
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_client.hpp"
#include "tier/topology/topology_json.hpp"
#include "tier/topology/topology_text.hpp"

namespace tierctl {

namespace {

struct TopoOptions {
  bool json = false;
  bool from_daemon = false;
  std::vector<std::string> tier_overrides;  // NODE=RANK
};

std::map<unsigned, unsigned> parse_overrides(const std::vector<std::string>& items) {
  std::map<unsigned, unsigned> out;
  for (const auto& item : items) {
    auto eq = item.find('=');
    try {
      if (eq == std::string::npos) throw std::invalid_argument(item);
      std::size_t used = 0;
      unsigned long node = std::stoul(item.substr(0, eq), &used);
      if (used != eq) throw std::invalid_argument(item);
      unsigned long rank = std::stoul(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument(item);
      out[static_cast<unsigned>(node)] = static_cast<unsigned>(rank);
    } catch (const std::exception&) {
      throw UsageError("--tier '" + item + "': expected NODE=RANK, e.g. --tier 2=1");
    }
  }
  return out;
}

int run_topo(const GlobalOptions& global, const TopoOptions& options) {
  if (options.from_daemon) {
    boost::json::value reply = daemon_request(global.socket, "topology");
    if (options.json) {
      std::cout << boost::json::serialize(reply) << "\n";
    } else {
      tier::render_topology(std::cout, tier::topology_from_json(reply));
    }
    return kOk;
  }
  tier::TopologyOptions topo_options = topology_options(global);
  topo_options.tier_override = parse_overrides(options.tier_overrides);
  tier::Topology topology = tier::load_topology(topo_options);
  if (options.json) {
    std::cout << boost::json::serialize(tier::to_json(topology)) << "\n";
    return kOk;
  }
  tier::render_topology(std::cout, topology);
  return kOk;
}

}  // namespace

void add_topo_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<TopoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topo", "Show NUMA nodes, memory kinds, tiers, distances, HMAT figures, device locality");
  cmd->footer(
      "For every NUMA node: CPUs, memory, kind (dram, hbm, pmem, cxl, or cpuless for a\n"
      "memory-only node of unknown technology) and tier rank (0 = fastest); then the SLIT\n"
      "distance matrix, HMAT latency/bandwidth per initiator->target pair, the kernel's\n"
      "memory tiers and the NUMA locality of GPUs, NICs, NVMe and CXL devices.\n"
      "Tiers are ranked by --tier overrides, else kernel memory tiers when they tell nodes\n"
      "apart, else HMAT figures, else SLIT distances (docs/topology.md).\n\n"
      "Examples:\n"
      "  tierctl topo\n"
      "  tierctl topo --json | jq '.nodes[] | {id, kind, tier}'\n"
      "  tierctl --root /tmp/gathered-sysfs topo --tier 4=1");
  cmd->add_flag("--json", options->json,
                "Print one JSON document (schema tier.topology/v1, docs/topology.md)");
  cmd->add_flag("--daemon", options->from_daemon,
                "Ask the running tierd (see --socket) instead of reading the machine");
  cmd->add_option("--tier", options->tier_overrides,
                  "Override the tier rank of a node, e.g. --tier 2=1 (repeatable)")
      ->type_name("NODE=RANK");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_topo(global, *options); };
  });
}

}  // namespace tierctl
