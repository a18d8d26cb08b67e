// Features of newer kernels that change what tier (and the kernel itself)
// can do for tiering; each decided by what the running kernel exposes, never
// by its version number alone:
//   damon_node_goals          DAMOS quota goals on a node's used/free memory
//                             (node_mem_used_bp/node_mem_free_bp, 6.16): the
//                             kernel's own auto-tuned migrate_hot/migrate_cold
//                             tiering (samples/damon/mtier.c)
//   weighted_interleave_auto  interleave weights derived from HMAT bandwidth
//                             by the kernel (6.16)
//   pagemap_scan              the PAGEMAP_SCAN ioctl (6.7): one call finds
//                             written or present pages instead of a read of
//                             every pagemap entry
#include "checks.hpp"
#include "tier/posix/text.hpp"

namespace tier::doctor {

namespace {

// The exact name: followed by the end of the line (or a module's tab).
std::optional<bool> kallsyms_has_symbol(const SysRoot& root, std::string_view symbol) {
  auto symbols = root.read("/proc/kallsyms");
  if (!symbols || symbols->empty()) return std::nullopt;
  const std::string needle = " " + std::string(symbol);
  for (auto at = symbols->find(needle); at != std::string::npos;
       at = symbols->find(needle, at + 1)) {
    auto end = at + needle.size();
    if (end == symbols->size() || (*symbols)[end] == '\n' || (*symbols)[end] == '\t') return true;
  }
  return false;
}

// A function only a kernel with the feature has, looked up in kallsyms.
CheckResult by_symbol(const SysRoot& root, std::string_view symbol, std::string_view feature,
                      std::string_view impact) {
  CheckResult r;
  auto listed = kallsyms_has_symbol(root, symbol);
  if (!listed) {
    r.status = Status::error;
    r.detail = "no /proc/kallsyms to look for " + std::string(symbol) + " in";
    r.impact = "unknown whether the kernel has " + std::string(feature);
  } else if (*listed) {
    r.status = Status::ok;
    r.detail = std::string(feature) + ": /proc/kallsyms lists " + std::string(symbol);
  } else {
    r.status = Status::missing;
    r.detail =
        "/proc/kallsyms has no " + std::string(symbol) + " (no " + std::string(feature) + ")";
    r.impact = std::string(impact);
  }
  return r;
}

}  // namespace

std::optional<bool> kallsyms_lists(const SysRoot& root, std::string_view prefix) {
  auto symbols = root.read("/proc/kallsyms");
  if (!symbols || symbols->empty()) return std::nullopt;
  // "ADDRESS TYPE NAME[\t[MODULE]]": the name follows the type and a blank.
  std::string needle = " " + std::string(prefix);
  return symbols->find(needle) != std::string::npos;
}

CheckResult check_damon_node_goals(const Context& ctx) {
  return by_symbol(ctx.root, "damos_get_node_mem_bp",
                   "DAMOS quota goals node_mem_used_bp/node_mem_free_bp",
                   "no auto-tuned DAMON tiering (migrate_hot/migrate_cold kept at a node's "
                   "used/free target): the kernel's own DAMON contender needs fixed quotas");
}

CheckResult check_weighted_interleave_auto(const Context& ctx) {
  CheckResult r;
  constexpr std::string_view kDir = "/sys/kernel/mm/mempolicy/weighted_interleave";
  // Upstream names the switch `auto`; some 6.16 builds show `__auto_type`.
  for (std::string_view name : {"auto", "__auto_type"}) {
    std::string path = std::string(kDir) + "/" + std::string(name);
    if (auto value = ctx.root.read(path)) {
      r.status = Status::ok;
      r.detail = path + " = " + std::string(text::trim(*value)) +
                 " (true: the kernel derives the weights from HMAT bandwidth)";
      return r;
    }
  }
  r.status = Status::missing;
  r.detail = "no " + std::string(kDir) + "/auto (kernel older than 6.16)";
  r.impact = "interleave weights are only what is written to node<N>: tier computes them itself";
  return r;
}

CheckResult check_pagemap_scan(const Context& ctx) {
  return by_symbol(ctx.root, "do_pagemap_scan", "PAGEMAP_SCAN ioctl",
                   "finding written or present pages reads every pagemap entry");
}

}  // namespace tier::doctor
