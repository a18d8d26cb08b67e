#include "heat_choice.hpp"

#include "plan_filter.hpp"

namespace tierd {

namespace {

std::string mib(std::uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

HeatChoice choose_heat_source(const Config& config, bool bpf_fault_loads,
                              const std::vector<tier::policy::NodeState>& nodes) {
  if (config.kernel_tiering != KernelTiering::own || config.heat_source != "auto") {
    return {config.heat_source, "as configured"};
  }
  if (!bpf_fault_loads) {
    return {"auto", "NUMA balancing off: the eBPF fault source cannot load here"};
  }
  unsigned fast_tier = ~0u;
  for (const tier::policy::NodeState& n : nodes) fast_tier = std::min(fast_tier, n.tier);
  std::string short_nodes;
  for (const tier::policy::NodeState& n : nodes) {
    if (n.tier != fast_tier || !n.has_cpus) continue;
    const std::uint64_t floor = kernel_promotion_floor(n);
    if (n.free_bytes >= floor) {
      return {"auto", "NUMA balancing off: node " + std::to_string(n.node) + " has " +
                          mib(n.free_bytes) + " free, at least the " + mib(floor) +
                          " above which the kernel promotes whatever the rate limit"};
    }
    short_nodes += (short_nodes.empty() ? "" : ", ") + std::to_string(n.node) + " (" +
                   mib(n.free_bytes) + " free < " + mib(floor) + ")";
  }
  if (short_nodes.empty()) return {"auto", "NUMA balancing off: no fast node with CPUs"};
  return {"bpf-fault",
          "NUMA hint faults, kernel promotion held off by a rate limit of 0 while fast node(s) " +
              short_nodes + " stay short of free memory"};
}

}  // namespace tierd
