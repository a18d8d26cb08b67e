// Who holds each CPU during a layout computation (see cpu_book.hpp).
#include "cpu_book.hpp"

namespace tier::cpu::detail {

namespace {

bool is_online_exclusive(const Claim& c) {
  return c.cls == WorkloadClass::online && c.pool.kind == PoolKind::exclusive;
}

}  // namespace

CpuBook::CpuBook(const CpuInventory& inventory, const CpuList& reserved,
                 const std::vector<Claim>& claims)
    : inventory_(inventory), claims_(claims), state_(inventory.id_limit(), kAbsent) {
  for (unsigned cpu : inventory.all().ids()) state_[cpu] = kFree;
  for (unsigned cpu : reserved.ids()) {
    if (state(cpu) == kFree) state_[cpu] = kReserved;
  }
}

bool CpuBook::may_share_core(std::size_t a, std::size_t b) const {
  const Claim& x = claims_[a];
  const Claim& y = claims_[b];
  if (is_online_exclusive(x) && y.cls == WorkloadClass::offline) return false;
  if (is_online_exclusive(y) && x.cls == WorkloadClass::offline) return false;
  return true;
}

bool CpuBook::eligible(unsigned cpu, std::size_t claim) const {
  if (!free(cpu)) return false;
  const LogicalCpu* c = inventory_.cpu(cpu);
  for (unsigned sibling : inventory_.cores()[c->core].ids()) {
    const int other = holder(sibling);
    if (other >= 0 && !may_share_core(claim, static_cast<std::size_t>(other))) return false;
  }
  return true;
}

bool CpuBook::online_exclusive(unsigned cpu) const {
  const int h = holder(cpu);
  return h >= 0 && is_online_exclusive(claims_[static_cast<std::size_t>(h)]);
}

bool CpuBook::shared(unsigned cpu) const {
  const int s = state(cpu);
  if (s == kFree) return true;
  return s >= 0 && claims_[static_cast<std::size_t>(s)].pool.kind == PoolKind::immovable;
}

}  // namespace tier::cpu::detail
