#include <stdexcept>

#include "balanced_policy.hpp"
#include "static_policy.hpp"
#include "tier/policy/policy.hpp"
#include "tier/values/values.hpp"
#include "tpp_policy.hpp"

namespace tier::policy {

const std::vector<PolicyInfo>& registered_policies() {
  static const std::vector<PolicyInfo> policies{balanced_policy_info(), static_policy_info(),
                                                tpp_policy_info()};
  return policies;
}

const PolicyInfo* find_policy(const std::string& name) {
  for (const PolicyInfo& info : registered_policies()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string policy_names() {
  std::string names;
  for (const PolicyInfo& info : registered_policies()) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

Params resolve_params(const PolicyInfo& info, const Params& given) {
  Params resolved;
  for (const ParamSpec& spec : info.params) resolved[spec.name] = spec.default_value;
  for (const auto& [name, value] : given) {
    const ParamSpec* spec = nullptr;
    for (const ParamSpec& candidate : info.params) {
      if (candidate.name == name) spec = &candidate;
    }
    if (spec == nullptr) {
      throw std::invalid_argument("policy '" + info.name + "' has no parameter '" + name + "'" +
                                  (info.params.empty() ? " (it takes none)" : ""));
    }
    // Plain numbers both ways (tier::values): std::to_string wrote 0.5 as
    // 0.500000 and a bound of 1e6 as 1000000.000000.
    if (!(value >= spec->min && value <= spec->max)) {
      throw std::invalid_argument(
          "policy '" + info.name + "' parameter '" + name + "': expected a number " +
          tier::values::range_text(spec->min, spec->max) + ", got " + tier::values::plain(value));
    }
    resolved[name] = value;
  }
  return resolved;
}

}  // namespace tier::policy
