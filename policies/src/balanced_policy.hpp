// `balanced`, the default placement policy (docs/policies.md): hottest data
// that fits the fast tier, ranked by heat × latency benefit, with watermarks,
// quotas, budgets and anti-thrash; no per-workload thresholds to tune.
#pragma once

#include "tier/policy/policy.hpp"

namespace tier::policy {

PolicyInfo balanced_policy_info();

}  // namespace tier::policy
