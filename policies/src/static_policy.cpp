#include "static_policy.hpp"

namespace tier::policy {

namespace {

class StaticPolicy final : public Policy {
 public:
  Plan plan(const Snapshot&) override { return {}; }
};

}  // namespace

PolicyInfo static_policy_info() {
  return {
      "static",
      "never migrates: pages stay where the kernel put them (the baseline)",
      {},
      [](const Params&) -> std::unique_ptr<Policy> { return std::make_unique<StaticPolicy>(); }};
}

}  // namespace tier::policy
