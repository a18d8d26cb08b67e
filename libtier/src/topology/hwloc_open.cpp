// Opening hwloc for the topology snapshot and the CPU inventory (see hwloc_open.hpp).
#include "topology/hwloc_open.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "tier/topology/topology.hpp"

namespace tier::detail {

namespace {

// hwloc's Linux backend reads its root from $HWLOC_FSROOT; set it only for the
// duration of the load and restore the caller's environment afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (previous_) {
      setenv(name_, previous_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

bool plain_memory(hwloc_obj_t node) {
  if (hwloc_obj_get_info_by_name(node, "DAXDevice") != nullptr) return false;
  if (node->subtype == nullptr) return true;
  return std::strcmp(node->subtype, "DRAM") == 0;
}

hwloc_obj_t first_numanode(hwloc_obj_t memory_child, bool plain_only) {
  for (hwloc_obj_t obj = memory_child; obj != nullptr; obj = obj->next_sibling) {
    if (obj->type == HWLOC_OBJ_NUMANODE) {
      if (!plain_only || plain_memory(obj)) return obj;
    } else if (hwloc_obj_t below = first_numanode(obj->memory_first_child, plain_only)) {
      return below;  // memory-side caches sit between the parent and its node
    }
  }
  return nullptr;
}

}  // namespace

HwlocHandle open_hwloc(const SysRoot& root, const std::optional<std::string>& xml, bool io) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw TopologyError("hwloc: cannot initialise a topology");
  HwlocHandle topology(raw, &hwloc_topology_destroy);
  // tier manages the whole machine, not only the cpuset it happens to run in.
  hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (io) hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);

  std::optional<std::string> fsroot;
  if (!xml && !root.is_live()) fsroot = root.root().string();
  ScopedEnv env_root("HWLOC_FSROOT", fsroot);
  // A gathered tree is not this system: never let hwloc bind or read cpuid.
  ScopedEnv env_this("HWLOC_THISSYSTEM",
                     fsroot || xml ? std::optional<std::string>("0") : std::nullopt);
  // hwloc's x86 backend reads this CPU's cpuid, which would mix the host's
  // caches into a gathered tree.
  if (fsroot) hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
  if (xml && hwloc_topology_set_xml(raw, xml->c_str()) != 0) {
    throw TopologyError("cannot read hwloc XML '" + *xml + "': " + std::strerror(errno) +
                        " (expected an lstopo --of xml export)");
  }
  if (hwloc_topology_load(raw) != 0) {
    const int error = errno;
    // hwloc_topology_set_xml() only records the path; parse errors (garbage,
    // truncated, XML v3 on hwloc 2.x) surface here, so name the input.
    const std::string what = xml      ? "hwloc XML '" + *xml + "'"
                             : fsroot ? "sysfs tree '" + *fsroot + "'"
                                      : std::string("the live system");
    throw TopologyError("hwloc failed to load " + what + ": " + std::strerror(error) +
                        (xml ? " (expected an lstopo --of xml export readable by hwloc " +
                                   std::string(HWLOC_VERSION) + ")"
                             : std::string()));
  }
  return topology;
}

CpuList to_cpulist(hwloc_const_bitmap_t set) {
  std::vector<unsigned> ids;
  if (set == nullptr) return CpuList();
  for (int id = hwloc_bitmap_first(set); id >= 0; id = hwloc_bitmap_next(set, id)) {
    ids.push_back(static_cast<unsigned>(id));
  }
  return CpuList(std::move(ids));
}

hwloc_obj_t numa_node_of_pu(hwloc_obj_t pu) {
  for (hwloc_obj_t up = pu->parent; up != nullptr; up = up->parent) {
    if (up->memory_arity == 0) continue;
    hwloc_obj_t node = first_numanode(up->memory_first_child, true);
    if (node == nullptr) node = first_numanode(up->memory_first_child, false);
    return node;
  }
  return nullptr;
}

}  // namespace tier::detail
