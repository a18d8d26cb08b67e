// numa_nodes, memory_tiering, numa_balancing, demotion: what the kernel knows
// about the memory tiers and what it already does with them by itself.
#include "checks.hpp"
#include "tier/posix/text.hpp"

namespace tier::doctor {

namespace {

std::string ids(const std::vector<unsigned>& values) {
  std::vector<std::string> parts;
  parts.reserve(values.size());
  for (unsigned v : values) parts.push_back(std::to_string(v));
  return text::join(parts, ",");
}

std::string balancing_meaning(std::int64_t mode) {
  // A bitmask since 6.0: 1 = NUMA_BALANCING_NORMAL, 2 = NUMA_BALANCING_MEMORY_TIERING.
  switch (mode) {
    case 0:
      return "disabled: no NUMA hint faults, the kernel neither moves tasks/pages nor promotes";
    case 1:
      return "normal: hint faults move pages and tasks toward each other across nodes";
    case 2:
      return "memory tiering: hint faults promote hot pages from slower tiers to faster ones";
    case 3:
      return "normal + memory tiering";
    default:
      return "unknown mode";
  }
}

}  // namespace

CheckResult check_numa_nodes(const Context& ctx) {
  CheckResult r;
  constexpr const char* kDir = "/sys/devices/system/node";
  auto nodes = numbered_entries(ctx.root, kDir, "node");
  if (nodes.empty()) {
    r.status = Status::missing;
    r.detail = std::string("no node*/ under ") + kDir + " (CONFIG_NUMA off)";
    r.impact = "no NUMA: one memory pool, tier can only pin CPUs";
    return r;
  }
  r.status = Status::ok;
  r.detail = std::to_string(nodes.size()) + (nodes.size() == 1 ? " node (" : " nodes (") +
             ids(nodes) + ")";
  // has_cpu/has_memory hold node lists ("0-1"), not counts: say so.
  const std::pair<const char*, const char*> masks[] = {{"has_cpu", "nodes with CPUs: "},
                                                       {"has_memory", "nodes with memory: "}};
  for (const auto& [mask, label] : masks) {
    if (auto list = ctx.root.read(std::string(kDir) + "/" + mask); list && !list->empty()) {
      r.detail += std::string("; ") + label + *list;
    }
  }
  if (nodes.size() == 1) r.impact = "single node: placement and migration have no choice to make";
  return r;
}

CheckResult check_memory_tiering(const Context& ctx) {
  CheckResult r;
  constexpr const char* kDir = "/sys/devices/virtual/memory_tiering";
  if (!ctx.root.exists(kDir)) {
    r.status = Status::missing;
    r.detail = std::string("no ") + kDir + " (kernel older than 6.1 or CONFIG_NUMA off)";
    r.impact = "no kernel memory tiers: tier ranks nodes from HMAT/SLIT evidence alone";
    return r;
  }
  auto tiers = numbered_entries(ctx.root, kDir, "memory_tier");
  std::vector<std::string> parts;
  for (unsigned tier_id : tiers) {
    std::string name = "memory_tier" + std::to_string(tier_id);
    parts.push_back(name + "=" +
                    ctx.root.read(std::string(kDir) + "/" + name + "/nodelist").value_or("?"));
  }
  r.status = tiers.empty() ? Status::missing : Status::ok;
  r.detail = std::to_string(tiers.size()) + (tiers.size() == 1 ? " tier" : " tiers") +
             (parts.empty() ? "" : ": " + text::join(parts, ", "));
  if (tiers.size() == 1) {
    r.detail += " (single tier: the kernel sees no slower memory)";
  } else if (tiers.empty()) {
    r.impact = "kernel registered no memory tier: tier ranks nodes from HMAT/SLIT evidence";
  }
  return r;
}

CheckResult check_numa_balancing(const Context& ctx) {
  CheckResult r;
  auto mode = ctx.root.read_int("/proc/sys/kernel/numa_balancing");
  if (!mode) {
    r.status = Status::missing;
    r.detail = "no /proc/sys/kernel/numa_balancing (CONFIG_NUMA_BALANCING off)";
    r.impact =
        "no NUMA hint faults: no in-kernel promotion to coordinate with or compare against, and "
        "no hint-fault heat source";
    return r;
  }
  r.status = Status::ok;
  r.detail = "mode " + std::to_string(*mode) + " (" + balancing_meaning(*mode) + ")";
  if (auto limit = ctx.root.read_int("/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps")) {
    r.detail += "; promote_rate_limit_MBps=" + std::to_string(*limit);
  } else {
    r.detail += "; no numa_balancing_promote_rate_limit_MBps (kernel older than 6.0)";
  }
  if ((*mode & 2) != 0) {
    r.impact = "the kernel promotes hot pages itself: tier must coordinate or it competes";
  }
  return r;
}

CheckResult check_demotion(const Context& ctx) {
  CheckResult r;
  auto value = ctx.root.read("/sys/kernel/mm/numa/demotion_enabled");
  if (!value) {
    r.status = Status::missing;
    r.detail =
        "no /sys/kernel/mm/numa/demotion_enabled (kernel older than 5.15 or CONFIG_NUMA off)";
    r.impact =
        "the kernel cannot demote on reclaim: cold pages move down only by tier's migrations";
    return r;
  }
  bool on = *value == "true" || *value == "1";
  r.status = Status::ok;
  r.detail = "demotion_enabled=" + *value +
             (on ? " (reclaim demotes cold pages to the next slower tier)"
                 : " (reclaim drops or swaps cold pages instead of demoting them)");
  return r;
}

}  // namespace tier::doctor
