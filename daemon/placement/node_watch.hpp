// Node memory coming and going under a running tierd (memory hotplug: a CXL
// region's blocks offlined, its dax device unbound from kmem, and back).
//
// tierd reads the topology (kinds, tier ranks, distances) at start and at
// reload, but node memory is sampled every epoch. NodeWatch compares each
// epoch's sample with the one taken when the topology was last read and
// names the nodes whose memory changed by at least one memory block (the
// unit hotplug works in; smaller drifts are the kernel's own reservations,
// not a different machine). The daemon then re-reads the topology, so a node
// that lost its memory leaves the kernel's tiers and the ranks, and a node
// that comes back (or a new one) is ranked before anything moves to it.
//
// placeable_nodes() is what the policies see of the nodes: only those with
// memory. A node without memory is no target (move_pages answers ENODEV for
// it), and a node the topology does not know yet is not ranked (its tier
// would read as 0, the fast tier).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tier/memory/node_usage.hpp"
#include "tier/policy/policy.hpp"
#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"

namespace tierd {

/// /sys/devices/system/memory/block_size_bytes (hex), or 128 MiB (x86's
/// smallest block) when the file cannot be read.
std::uint64_t memory_block_bytes(const tier::SysRoot& root);

class NodeWatch {
 public:
  /// The baseline: node memory as it was when the topology was read.
  void reset(const tier::MemorySnapshot& memory, std::uint64_t block_bytes);
  /// How `memory` differs from the baseline, one line per node that gained
  /// or lost at least one block, appeared or went, ascending node id:
  /// "node 4: no memory (was 256 MiB)", "node 4: gone (was 256 MiB)",
  /// "node 4: 128 MiB (was 256 MiB)", "node 4: 256 MiB (was none)".
  /// Empty when nothing changed.
  std::vector<std::string> changes(const tier::MemorySnapshot& memory) const;

 private:
  std::map<unsigned, std::uint64_t> total_bytes_;  // node → MemTotal at the baseline
  std::uint64_t block_bytes_ = 0;
};

/// The policy's view of the nodes: those of `memory` with memory and known
/// to `topology`, with their tier rank and whether they have CPUs.
std::vector<tier::policy::NodeState> placeable_nodes(const tier::MemorySnapshot& memory,
                                                     const tier::Topology& topology);

}  // namespace tierd
