// `tierctl topo`: nodes, kinds, tiers, distances, HMAT figures, device locality.
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_client.hpp"
#include "tier/json/json_text.hpp"
#include "tier/topology/topology_json.hpp"
#include "tier/topology/topology_text.hpp"
#include "usage.hpp"
#include "value_options.hpp"

namespace tierctl {

namespace {

struct TopoOptions {
  bool json = false;
  bool from_daemon = false;
  TextListValue tier_overrides;  // NODE=RANK
};

/// Tier ranks: at most one tier per node (Linux has up to 1024 nodes).
constexpr std::uint64_t kMaxRank = kMaxNodeId;

/// NODE=RANK items, by node, with the item as typed for messages.
struct Override {
  unsigned rank = 0;
  std::string item;
};

/// NODE=RANK items as typed; the nodes are checked against the topology
/// once it is loaded (check_override_nodes).
std::map<unsigned, Override> parse_overrides(const TextListValue& flag) {
  std::map<unsigned, Override> out;
  for (const std::string& item : flag.get()) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      throw tier::values::ValueError(flag.name(), item, "expected NODE=RANK, e.g. --tier 2=1");
    }
    const auto part = [&](std::string_view text, const char* what, std::uint64_t max) {
      try {
        return static_cast<unsigned>(tier::values::parse_count(flag.name(), text, 0, max));
      } catch (const tier::values::ValueError& e) {
        throw tier::values::ValueError(flag.name(), item,
                                       std::string(what) + " of NODE=RANK: " + e.why());
      }
    };
    out[part(std::string_view(item).substr(0, eq), "the node", kMaxNodeId)] =
        Override{part(std::string_view(item).substr(eq + 1), "the rank", kMaxRank), item};
  }
  return out;
}

void check_override_nodes(const TextListValue& flag, const std::map<unsigned, Override>& overrides,
                          const tier::Topology& topology) {
  const tier::CpuList nodes = node_ids(topology);
  for (const auto& [node, override] : overrides) {
    try {
      tier::values::require_existing(flag.name(), node, tier::values::IdKind::node, nodes);
    } catch (const tier::values::ValueError& e) {
      throw tier::values::ValueError(flag.name(), override.item, e.why());
    }
  }
}

int run_topo(const GlobalOptions& global, const TopoOptions& options) {
  const std::map<unsigned, Override> overrides = parse_overrides(options.tier_overrides);
  if (options.from_daemon) {
    if (!overrides.empty()) {
      throw UsageError("--tier does not go with --daemon (tierd ranks its own topology)");
    }
    boost::json::value reply = daemon_request(global.socket, "topology");
    if (options.json) {
      std::cout << tier::json_text(reply) << "\n";
    } else {
      tier::render_topology(std::cout, tier::topology_from_json(reply));
    }
    return kOk;
  }
  tier::TopologyOptions topo_options = topology_options(global);
  for (const auto& [node, override] : overrides) topo_options.tier_override[node] = override.rank;
  tier::Topology topology = tier::load_topology(topo_options);
  check_override_nodes(options.tier_overrides, overrides, topology);
  if (options.json) {
    std::cout << tier::json_text(tier::to_json(topology)) << "\n";
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
  set_usage(*cmd, "tierctl topo [--json] [--daemon] [--tier NODE=RANK]...");
  bind_text(*cmd, "--tier", options->tier_overrides, "NODE=RANK",
            "Override the tier rank of a node, e.g. --tier 2=1 (repeatable; ranks 0 to 1023)",
            true);
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_topo(global, *options); };
  });
}

}  // namespace tierctl
