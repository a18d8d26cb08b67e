// The CPU pool layout: which CPUs and memory nodes every workload gets, as a
// pure function of the machine, the config and the workloads' claims.
//
// Contract: compute_layout() makes no syscall and reads no clock; the same
// input gives the same Layout. Pools (docs/pools.md):
//  - "shared": every CPU minus the reserved ones and the exclusive claims
//    (immovable CPUs stay in it); it never becomes empty — a claim that would
//    empty it is refused with that reason;
//  - "numa:N": the shared CPUs of node N;
//  - immovable/exclusive claims: K CPUs of their own, whole physical cores
//    where possible, never a CPU another claim holds. A core with an online
//    exclusive CPU never gives a CPU to an offline workload (its unclaimed
//    sibling, the "orphan", is left out of offline members' CPUs).
// Claims that already hold CPUs are placed first and keep them (a resize
// grows next to them or shrinks from their end, in core order); new claims
// follow in input order. Each assignment's memory nodes are its CPUs' nodes
// plus the CPU-less nodes near them, ordered by class (online/default: fast
// first; offline: slow first). Bad input is refused per workload with a
// reason that names the value; a holder whose resize cannot be met keeps the
// CPUs it has and is also listed as refused.
#pragma once

#include <string>
#include <vector>

#include "tier/cpu/cpu_inventory.hpp"
#include "tier/cpu/cpulist.hpp"
#include "tier/cpu/pool_spec.hpp"
#include "tier/protocol/workload_class.hpp"
#include "tier/topology/topology.hpp"

namespace tier::cpu {

struct PoolConfig {
  CpuList reserved;  // kept for the system and IRQs: in no pool
  // pack: a claim goes to the node whose free whole cores fit it most
  // tightly (keeps big holes for big claims); spread: to the node with the
  // most free whole cores (balances claims over nodes). Either way a claim
  // that fits in one node stays in one node.
  enum class Placement { pack, spread } placement = Placement::pack;
};

struct Claim {
  std::string workload;
  WorkloadClass cls = WorkloadClass::normal;
  PoolSpec pool;
  CpuList held;  // CPUs it holds now: kept on recompute, the base for a live resize
};

struct Assignment {
  std::string workload;
  std::string pool;  // "shared", "numa:1", "exclusive:2", ... (K = CPUs it holds)
  CpuList cpus;
  std::vector<unsigned> mems;  // preference order
};

struct Refusal {
  std::string workload;
  std::string reason;
};

struct PoolView {
  std::string name;  // "shared", "numa:N", or "<kind>:<K>:<workload>" for a claim's own CPUs
  CpuList cpus;
  std::vector<unsigned> mems;  // in online/default order (offline members: slow CPU-less first)
  std::vector<std::string> members;
};

struct Layout {
  std::vector<PoolView> pools;
  std::vector<Assignment> assignments;  // input order
  std::vector<Refusal> refused;         // input order
};

Layout compute_layout(const CpuInventory& inventory, const Topology& topology,
                      const PoolConfig& config, const std::vector<Claim>& claims);

}  // namespace tier::cpu
