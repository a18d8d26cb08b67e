// Which of a policy's planned moves tierd carries out, by kernel_tiering mode
// (docs/kernel-tiering.md). Pure: the snapshot the plan came from says where
// each range is and how full each node is.
//
//  - own: every move.
//  - coexist: every demotion; while the kernel promotes (NUMA balancing on,
//    kernel_coordination.hpp) a promotion only into a node too full for the
//    kernel's own promotion (free below the kernel's "enough free space"
//    level, max(1 GiB, node size / 16) + the node's high watermark, as
//    pgdat_free_space_enough() computes it): above that level the kernel
//    promotes on its own and tierd stays out of its way. While it does not,
//    every promotion: nothing else would make it.
//  - observe: nothing; every move is reported as withheld.
// A paused daemon withholds everything too.
#pragma once

#include <string>
#include <vector>

#include "config.hpp"
#include "metrics/inputs.hpp"
#include "tier/policy/policy.hpp"

namespace tierd {

struct PlannedMove {
  tier::policy::Move move;
  int from_node = -1;  // where the range was in the snapshot, -1 unknown
  MigrationDirection direction = MigrationDirection::promote;
};

struct WithheldMove {
  PlannedMove planned;
  std::string why;
};

struct FilteredPlan {
  std::vector<PlannedMove> execute;
  std::vector<WithheldMove> withheld;
};

/// The free-memory level below which the kernel stops promoting into `node`.
std::uint64_t kernel_promotion_floor(const tier::policy::NodeState& node);

/// What the kernel does now, beside the mode (coexist depends on it).
struct KernelRole {
  KernelTiering mode = KernelTiering::coexist;
  bool promotes_into_room = true;  // kernel_promotes_into_room()
};

FilteredPlan filter_plan(const KernelRole& kernel, bool paused, const tier::policy::Plan& plan,
                         const tier::policy::Snapshot& snapshot);

}  // namespace tierd
