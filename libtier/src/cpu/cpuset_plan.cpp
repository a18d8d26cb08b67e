// The write order of cpuset_plan.hpp. Every rule below answers one kernel
// check (kernel/cgroup/cpuset*.c): a child must stay within its parent, so
// the parent widens first and narrows last; a group with tasks may not become
// empty, so each group goes through old ∪ new before reaching new; an
// exclusive group may not overlap a sibling, so exclusivity is dropped before
// CPUs move and set again once every sibling is at its final value.
#include "cpu/cpuset_plan.hpp"

#include <algorithm>
#include <iterator>

namespace tier::cpu {

const char* to_string(WriteKind kind) {
  switch (kind) {
    case WriteKind::create:
      return "create";
    case WriteKind::cpus:
      return "cpus";
    case WriteKind::mems:
      return "mems";
    case WriteKind::exclusive:
      return "exclusive";
    case WriteKind::partition:
      return "partition";
    case WriteKind::remove:
      return "remove";
  }
  return "?";
}

CpuList set_union(const CpuList& a, const CpuList& b) {
  std::vector<unsigned> ids;
  std::set_union(a.ids().begin(), a.ids().end(), b.ids().begin(), b.ids().end(),
                 std::back_inserter(ids));
  return CpuList(std::move(ids));
}

bool is_subset(const CpuList& part, const CpuList& whole) {
  return std::includes(whole.ids().begin(), whole.ids().end(), part.ids().begin(),
                       part.ids().end());
}

bool overlaps(const CpuList& a, const CpuList& b) {
  auto i = a.ids().begin();
  auto j = b.ids().begin();
  while (i != a.ids().end() && j != b.ids().end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

namespace {

[[noreturn]] void refuse(const std::string& group, const std::string& why) {
  throw CpusetError("cpuset group '" + group + "' refused: " + why, group, "", 0);
}

bool valid_group_name(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return false;
  }
  // Names starting like control files would shadow them in cgroupfs.
  return name.rfind("cpuset.", 0) != 0 && name.rfind("cgroup.", 0) != 0;
}

CpuList exclusive_cpus(const std::map<std::string, CpusetTarget>& groups) {
  CpuList all;
  for (const auto& [name, target] : groups) {
    if (target.exclusive) all = set_union(all, target.cpus);
  }
  return all;
}

// Appends the writes that give a group exclusivity (set) or take it away.
void exclusivity_writes(std::vector<CpusetWrite>& out, const std::string& group,
                        const CpusetTarget& target, bool set, ExclusiveStyle style) {
  if (style == ExclusiveStyle::cpu_exclusive_flag) {
    out.push_back({group, WriteKind::exclusive, set ? "1" : "0"});
  } else if (style == ExclusiveStyle::partition) {
    // cpus.exclusive must hold the CPUs before the group can become a
    // partition root, and the partition must end before they are released.
    if (set) {
      out.push_back({group, WriteKind::exclusive, target.cpus.to_string()});
      out.push_back({group, WriteKind::partition, "root"});
    } else {
      out.push_back({group, WriteKind::partition, "member"});
      out.push_back({group, WriteKind::exclusive, ""});
    }
  }
}

}  // namespace

CpusetTarget parent_target_for(const std::map<std::string, CpusetTarget>& wanted) {
  CpusetTarget parent;
  for (const auto& [name, target] : wanted) {
    parent.cpus = set_union(parent.cpus, target.cpus);
    parent.mems = set_union(parent.mems, target.mems);
    parent.exclusive = parent.exclusive || target.exclusive;
  }
  return parent;
}

void validate_cpuset_targets(const std::map<std::string, CpusetTarget>& wanted,
                             const CpusetTarget& parent_wanted) {
  for (const auto& [name, target] : wanted) {
    if (!valid_group_name(name)) refuse(name, "not a valid group name (one path component)");
    if (target.cpus.empty()) refuse(name, "no CPUs (a cpuset may not be empty)");
    if (target.mems.empty()) refuse(name, "no memory nodes (a cpuset may not be empty)");
    if (!is_subset(target.cpus, parent_wanted.cpus) ||
        !is_subset(target.mems, parent_wanted.mems)) {
      refuse(name, "cpus " + target.cpus.to_string() + " mems " + target.mems.to_string() +
                       " not within the parent's cpus " + parent_wanted.cpus.to_string() +
                       " mems " + parent_wanted.mems.to_string());
    }
    if (target.exclusive && !parent_wanted.exclusive) {
      refuse(name, "exclusive under a parent that is not exclusive");
    }
  }
  for (auto a = wanted.begin(); a != wanted.end(); ++a) {
    for (auto b = std::next(a); b != wanted.end(); ++b) {
      if ((a->second.exclusive || b->second.exclusive) &&
          overlaps(a->second.cpus, b->second.cpus)) {
        const auto& excl = a->second.exclusive ? *a : *b;
        const auto& other = a->second.exclusive ? *b : *a;
        refuse(excl.first, "exclusive cpus " + excl.second.cpus.to_string() + " overlap group '" +
                               other.first + "' (cpus " + other.second.cpus.to_string() + ")");
      }
    }
  }
}

std::vector<CpusetWrite> plan_cpuset_writes(const std::map<std::string, CpusetTarget>& current,
                                            const std::map<std::string, CpusetTarget>& wanted,
                                            const CpusetTarget& parent_current,
                                            const CpusetTarget& parent_wanted,
                                            ExclusiveStyle style) {
  validate_cpuset_targets(wanted, parent_wanted);
  std::vector<CpusetWrite> out;
  const bool flags = style == ExclusiveStyle::cpu_exclusive_flag;
  const bool partitions = style == ExclusiveStyle::partition;
  // An empty wanted set keeps the parent as it is: it may not become empty.
  const bool reshape_parent = !wanted.empty();

  // 1. Widen the parent so every old and new child fits inside it.
  CpuList parent_cpus = set_union(parent_current.cpus, parent_wanted.cpus);
  CpuList parent_mems = set_union(parent_current.mems, parent_wanted.mems);
  if (reshape_parent && parent_cpus != parent_current.cpus) {
    out.push_back({"", WriteKind::cpus, parent_cpus.to_string()});
  }
  if (reshape_parent && parent_mems != parent_current.mems) {
    out.push_back({"", WriteKind::mems, parent_mems.to_string()});
  }
  // The parent's exclusivity must precede its children's: v1 refuses an
  // exclusive child of a non-exclusive parent (EACCES); v2 needs the
  // children's exclusive CPUs in the parent's cpus.exclusive (remote partition).
  const CpuList excl_current = exclusive_cpus(current);
  const CpuList excl_wanted = exclusive_cpus(wanted);
  const CpuList excl_widened = set_union(excl_current, excl_wanted);
  if (flags && parent_wanted.exclusive && !parent_current.exclusive) {
    out.push_back({"", WriteKind::exclusive, "1"});
  }
  if (partitions && excl_widened != excl_current) {
    out.push_back({"", WriteKind::exclusive, excl_widened.to_string()});
  }

  // 2. Drop exclusivity where it ends, where the CPUs move, or where the
  // group goes away (its CPUs may be wanted by a sibling before the removal).
  for (const auto& [name, now] : current) {
    if (!now.exclusive) continue;
    auto it = wanted.find(name);
    bool keeps = it != wanted.end() && it->second.exclusive && it->second.cpus == now.cpus;
    if (!keeps) exclusivity_writes(out, name, now, false, style);
  }

  // 3. Create, then 4. widen every child to old ∪ new (cpus before mems:
  // a v1 group needs both before it can hold tasks).
  std::map<std::string, CpusetTarget> widened;
  for (const auto& [name, next] : wanted) {
    auto it = current.find(name);
    CpusetTarget old = it != current.end() ? it->second : CpusetTarget{};
    if (it == current.end()) out.push_back({name, WriteKind::create, ""});
    CpusetTarget wide{set_union(old.cpus, next.cpus), set_union(old.mems, next.mems), false};
    if (wide.cpus != old.cpus) out.push_back({name, WriteKind::cpus, wide.cpus.to_string()});
    if (wide.mems != old.mems) out.push_back({name, WriteKind::mems, wide.mems.to_string()});
    widened[name] = wide;
  }
  // 5. Narrow each child to its final value.
  for (const auto& [name, next] : wanted) {
    const CpusetTarget& wide = widened[name];
    if (next.cpus != wide.cpus) out.push_back({name, WriteKind::cpus, next.cpus.to_string()});
    if (next.mems != wide.mems) out.push_back({name, WriteKind::mems, next.mems.to_string()});
  }
  // 6. Remove the children that are no longer wanted: before exclusivity is
  // set (they may still hold CPUs an exclusive group takes) and before the
  // parent narrows (they may hold CPUs the parent gives up).
  for (const auto& [name, now] : current) {
    if (!wanted.count(name)) out.push_back({name, WriteKind::remove, ""});
  }
  // 7. Exclusivity on, now that every sibling is at its final value.
  for (const auto& [name, next] : wanted) {
    if (!next.exclusive) continue;
    auto it = current.find(name);
    bool had = it != current.end() && it->second.exclusive && it->second.cpus == next.cpus;
    if (!had) exclusivity_writes(out, name, next, true, style);
  }
  // 8. Narrow the parent last.
  if (partitions && excl_wanted != excl_widened) {
    out.push_back({"", WriteKind::exclusive, excl_wanted.to_string()});
  }
  if (flags && parent_current.exclusive && !parent_wanted.exclusive) {
    out.push_back({"", WriteKind::exclusive, "0"});
  }
  if (reshape_parent && parent_wanted.cpus != parent_cpus) {
    out.push_back({"", WriteKind::cpus, parent_wanted.cpus.to_string()});
  }
  if (reshape_parent && parent_wanted.mems != parent_mems) {
    out.push_back({"", WriteKind::mems, parent_wanted.mems.to_string()});
  }
  return out;
}

}  // namespace tier::cpu
