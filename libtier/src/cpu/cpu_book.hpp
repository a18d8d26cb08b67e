// Internal: the ledger of who holds each CPU while a layout is computed, and
// the SMT rule on top of it — a physical core never mixes an online exclusive
// workload with an offline one.
#pragma once

#include <cstddef>
#include <vector>

#include "tier/cpu/cpu_inventory.hpp"
#include "tier/cpu/pool_layout.hpp"

namespace tier::cpu::detail {

class CpuBook {
 public:
  CpuBook(const CpuInventory& inventory, const CpuList& reserved, const std::vector<Claim>& claims);

  const CpuInventory& inventory() const { return inventory_; }
  bool reserved(unsigned cpu) const { return state(cpu) == kReserved; }
  /// In the inventory, not reserved, held by no claim.
  bool free(unsigned cpu) const { return state(cpu) == kFree; }
  /// Index of the claim holding the CPU, or -1.
  int holder(unsigned cpu) const { return state(cpu) >= 0 ? state(cpu) : -1; }
  /// Free, and no sibling is held by a claim this one may not share a core
  /// with (online exclusive vs offline).
  bool eligible(unsigned cpu, std::size_t claim) const;
  void give(unsigned cpu, std::size_t claim) { state_[cpu] = static_cast<int>(claim); }
  /// Held by an online exclusive claim.
  bool online_exclusive(unsigned cpu) const;
  /// Not reserved and not exclusive: in the shared pool.
  bool shared(unsigned cpu) const;

 private:
  static constexpr int kAbsent = -3, kReserved = -2, kFree = -1;
  int state(unsigned cpu) const { return cpu < state_.size() ? state_[cpu] : kAbsent; }
  bool may_share_core(std::size_t a, std::size_t b) const;

  const CpuInventory& inventory_;
  const std::vector<Claim>& claims_;
  std::vector<int> state_;  // per CPU id: claim index, or kFree/kReserved/kAbsent
};

/// Up to `count` CPUs for claim `claim` (fewer when not enough are eligible),
/// whole free cores first. With `kept` non-empty (a holder growing): the free
/// siblings of its cores, then the cores nearest its own. Otherwise the node
/// choice follows `placement` (see PoolConfig).
std::vector<unsigned> pick_cpus(const CpuBook& book, std::size_t claim, std::size_t count,
                                const std::vector<unsigned>& kept, PoolConfig::Placement placement);

}  // namespace tier::cpu::detail
