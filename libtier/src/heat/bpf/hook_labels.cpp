#include "hook_labels.hpp"

#include <algorithm>

#include "tier/heat/source.hpp"

namespace tier::heat::bpf {

std::vector<Hook> select_hooks(const std::vector<Hook>& chain,
                               const std::vector<std::string>& labels) {
  if (labels.empty()) return chain;
  std::vector<Hook> chosen;
  for (const std::string& label : labels) {
    auto it = std::find_if(chain.begin(), chain.end(),
                           [&](const Hook& hook) { return hook.label == label; });
    if (it == chain.end()) {
      std::string known;
      for (const Hook& hook : chain) known += (known.empty() ? "" : ", ") + hook.label;
      throw SourceError("unknown hook " + label + " (known: " + known + ")");
    }
    chosen.push_back(*it);
  }
  return chosen;
}

}  // namespace tier::heat::bpf
