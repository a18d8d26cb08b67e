// Internal, pure: the order of cpuset writes that takes a parent group and its
// children from one state to another without ever breaking a kernel rule on
// the way (no populated group with an empty set, every child within its
// parent, no exclusive group overlapping a sibling, an exclusive child only
// under an exclusive parent). The backends execute the writes; the unit test
// replays them on a model of those rules and checks every intermediate state.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tier/cpu/cpuset_backend.hpp"

namespace tier::cpu {

enum class WriteKind {
  create,     // mkdir the group
  cpus,       // cpuset.cpus = value
  mems,       // cpuset.mems = value
  exclusive,  // v1: cpuset.cpu_exclusive = "1"/"0"; v2: cpuset.cpus.exclusive = list or ""
  partition,  // v2: cpuset.cpus.partition = "root"/"member"
  remove,     // move the group's tasks out, then rmdir
};
const char* to_string(WriteKind kind);

/// One step. group "" is the parent.
struct CpusetWrite {
  std::string group;
  WriteKind kind;
  std::string value;
  friend bool operator==(const CpusetWrite&, const CpusetWrite&) = default;
};

/// How exclusivity is expressed: v1's cpu_exclusive flag (the parent must be
/// exclusive before a child can be), v2's cpus.exclusive + partition "root"
/// (the parent's cpus.exclusive must hold the children's exclusive CPUs:
/// a remote partition), or not at all (exclusivity by layout only).
enum class ExclusiveStyle { cpu_exclusive_flag, partition, none };

/// Throws CpusetError (error 0, path = the group) when `wanted` cannot be
/// realised: a group with no CPUs or nodes, an exclusive group sharing CPUs
/// with a sibling, a bad group name, a child outside parent_wanted.
void validate_cpuset_targets(const std::map<std::string, CpusetTarget>& wanted,
                             const CpusetTarget& parent_wanted);

/// The parent target that holds `wanted`: union of CPUs and nodes, exclusive
/// when any child is.
CpusetTarget parent_target_for(const std::map<std::string, CpusetTarget>& wanted);

/// The ordered writes from `current` to `wanted` (validated first). Order:
/// widen the parent (cpus, then mems, then its exclusive flag); clear the
/// exclusivity of every child that loses it, changes CPUs or goes away;
/// create new children; widen each child to old ∪ new (cpus, then mems);
/// narrow each to its final value; remove unwanted children; set the
/// exclusivity of children that want it; narrow the parent last.
std::vector<CpusetWrite> plan_cpuset_writes(
    const std::map<std::string, CpusetTarget>& current,
    const std::map<std::string, CpusetTarget>& wanted, const CpusetTarget& parent_current,
    const CpusetTarget& parent_wanted, ExclusiveStyle style = ExclusiveStyle::cpu_exclusive_flag);

/// Set helpers on CpuList (ids are sorted and unique).
CpuList set_union(const CpuList& a, const CpuList& b);
bool is_subset(const CpuList& part, const CpuList& whole);
bool overlaps(const CpuList& a, const CpuList& b);

}  // namespace tier::cpu
