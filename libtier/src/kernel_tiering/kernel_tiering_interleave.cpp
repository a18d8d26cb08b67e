// Weighted interleave (6.9+): the system-wide per-node weights that
// MPOL_WEIGHTED_INTERLEAVE uses, and the auto-mode switch of newer kernels.
// The switch's file name has varied (`auto` upstream, `__auto_type` on the
// build machine's 6.18), so any entry that is not node<N> and reads as a
// boolean is taken as the switch, under the name found.
#include <algorithm>
#include <climits>

#include "kernel_tiering/kernel_tiering_files.hpp"
#include "posix/text_scan.hpp"

namespace tier::kernel_tiering {

namespace {

constexpr std::string_view kDir = "/sys/kernel/mm/mempolicy/weighted_interleave";

std::optional<unsigned> node_of(const std::string& name) {
  if (name.size() <= 4 || name.compare(0, 4, "node") != 0) return std::nullopt;
  auto id = text::parse_u64(std::string_view(name).substr(4));
  if (!id || *id > UINT_MAX) return std::nullopt;
  return static_cast<unsigned>(*id);
}

}  // namespace

WeightedInterleave read_weighted_interleave(const SysRoot& root) {
  WeightedInterleave wi;
  if (!root.exists(kDir)) {
    wi.why_not = "no " + std::string(kDir) + " (kernel older than 6.9 or CONFIG_NUMA off)";
    wi.auto_mode = Probed<bool>::unknown("no weighted interleave");
    return wi;
  }
  wi.available = true;
  for (const auto& name : root.list(kDir)) {
    std::string path = std::string(kDir) + "/" + name;
    if (auto node = node_of(name)) {
      auto weight = read_u64(root, path, path + " missing");
      Probed<unsigned> w;
      if (weight.value && *weight.value <= UINT_MAX) {
        w = Probed<unsigned>::known(static_cast<unsigned>(*weight.value));
      } else {
        w = Probed<unsigned>::unknown(weight.value ? path + ": out of range" : weight.why_not);
      }
      wi.weights.emplace_back(*node, std::move(w));
    } else if (!wi.auto_file) {
      // A name with "auto" in it is the switch even when it does not parse
      // (then why_not says so); another entry is the switch if it reads as
      // a boolean.
      auto value = read_bool(root, path, path + " missing");
      if (!value.value && name.find("auto") == std::string::npos) continue;
      wi.auto_file = name;
      wi.auto_mode = value;
    }
  }
  std::sort(wi.weights.begin(), wi.weights.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  if (!wi.auto_file) {
    wi.auto_mode =
        Probed<bool>::unknown("no auto-mode switch in " + std::string(kDir) + " (added in 6.16)");
  }
  return wi;
}

}  // namespace tier::kernel_tiering
