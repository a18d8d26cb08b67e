// `tpp`: the kernel's TPP as a baseline in the same machinery: promote a
// region seen on two accesses within a window, demote the least recently
// used regions of the fast tier when it runs short of free memory.
#pragma once

#include "tier/policy/policy.hpp"

namespace tier::policy {

PolicyInfo tpp_policy_info();

}  // namespace tier::policy
