// `static`: never migrates. The baseline every comparison starts from, and
// the policy that completes tierd's loop before placement policies exist.
#pragma once

#include "tier/policy/policy.hpp"

namespace tier::policy {

PolicyInfo static_policy_info();

}  // namespace tier::policy
