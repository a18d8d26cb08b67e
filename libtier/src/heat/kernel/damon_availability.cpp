// Can the "damon" source run here? It needs DAMON sysfs, the vaddr operations
// set, and a free kdamond slot (nr_kdamonds 0: see tier/heat/damon_source.hpp
// for why any existing kdamond rules DAMON out). Only reads files; whether
// vaddr is built is decided by the doctor's damon_vaddr check (an existing
// context's avail_operations, else the kernel config, else kallsyms), so
// `tierctl doctor` and the source never disagree.
#include "../../doctor/checks.hpp"
#include "damon_sysfs.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {

SourceAvailability damon_availability(const SysRoot& root) {
  if (!root.exists(kernel::kDamonAdmin)) {
    return {false,
            "no " + std::string(kernel::kDamonAdmin) + " (DAMON or CONFIG_DAMON_SYSFS not built)"};
  }
  doctor::Probers none;
  doctor::CheckResult vaddr = doctor::check_damon_vaddr(doctor::Context{root, none});
  auto existing = root.read_int(kernel::kNrKdamonds);

  std::vector<std::string> problems;
  if (vaddr.status == doctor::Status::missing) {
    problems.push_back("no DAMON vaddr: " + vaddr.detail);
  }
  if (!existing) {
    problems.push_back("cannot read " + std::string(kernel::kNrKdamonds));
  } else if (*existing != 0) {
    problems.push_back(std::to_string(*existing) + " kdamond(s) exist, not tier's: left untouched");
  }
  if (!problems.empty()) return {false, doctor::join(problems, "; ")};
  if (vaddr.status == doctor::Status::error) {
    // Undecidable without creating a kdamond; start() reads avail_operations
    // of the context it creates and refuses cleanly when vaddr is missing.
    return {true, "DAMON sysfs with a free kdamond slot; vaddr support checked at start (" +
                      vaddr.detail + ")"};
  }
  return {true, "DAMON vaddr through sysfs, kdamond slot free (" + vaddr.detail + ")"};
}

}  // namespace tier::heat
