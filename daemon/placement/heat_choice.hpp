// Which heat source kernel_tiering = "own" uses when heat_source = "auto"
// (docs/placement.md). Pure: the caller says whether the eBPF fault source
// can load and how full each fast node is.
//
// The kernel's NUMA hint faults are the most complete heat there is (every
// accessed page faults once per scan), but they come with the kernel's own
// promotion. Mode 2 with a promotion rate limit of 0 holds that promotion off
// only while the fast node is short of free memory (below the level
// kernel_promotion_floor() computes; measured in the emulated machine, see
// ../shared/guide/environment.md). So: hint faults through bpf-fault when every
// fast node with CPUs is below that level, else NUMA balancing off and the
// other sources in `auto` order.
#pragma once

#include <string>
#include <vector>

#include "config.hpp"
#include "tier/policy/policy.hpp"

namespace tierd {

struct HeatChoice {
  std::string source;  // "bpf-fault", "auto" or what was configured
  std::string why;     // one line for the log and status
};

HeatChoice choose_heat_source(const Config& config, bool bpf_fault_loads,
                              const std::vector<tier::policy::NodeState>& nodes);

}  // namespace tierd
