// weighted_interleave: per-node weights for MPOL_WEIGHTED_INTERLEAVE (6.9+).
// Entries are listed as found: besides node<N> files newer kernels add a mode
// switch whose name has varied (`auto`; some builds show `__auto_type`), so
// nothing but the node<N> pattern is assumed.
#include "checks.hpp"
#include "tier/posix/text.hpp"

namespace tier::doctor {

CheckResult check_weighted_interleave(const Context& ctx) {
  CheckResult r;
  constexpr std::string_view kDir = "/sys/kernel/mm/mempolicy/weighted_interleave";
  if (!ctx.root.exists(kDir)) {
    r.status = Status::missing;
    r.detail = "no " + std::string(kDir) + " (kernel older than 6.9 or CONFIG_NUMA off)";
    r.impact =
        "no system-wide interleave weights: tier sets per-task weights only where the syscall "
        "supports them, else uses plain interleave or explicit placement";
    return r;
  }
  std::vector<std::string> nodes;
  std::vector<std::string> others;
  for (const auto& name : ctx.root.list(kDir)) {
    std::string path(kDir);
    path += "/" + name;
    std::string entry = name + "=";
    entry += ctx.root.read(path).value_or("?");
    bool is_node = name.size() > 4 && name.starts_with("node") &&
                   name.find_first_not_of("0123456789", 4) == std::string::npos;
    (is_node ? nodes : others).push_back(std::move(entry));
  }
  r.status = Status::ok;
  r.detail = nodes.empty() ? "no node weight files" : "weights: " + text::join(nodes, ", ");
  if (!others.empty()) r.detail += "; other entries: " + text::join(others, ", ");
  return r;
}

}  // namespace tier::doctor
