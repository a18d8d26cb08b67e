// Can the "damon" source run here? It needs DAMON sysfs, the vaddr operations
// set, and a free kdamond slot (nr_kdamonds 0: see tier/heat/damon_source.hpp
// for why any existing kdamond rules DAMON out). Only reads files; whether
// vaddr is built is decided by the doctor's damon_vaddr check (an existing
// context's avail_operations, else the kernel config, else kallsyms), so
// `tierctl doctor` and the source never disagree.
#include "damon_sysfs.hpp"
#include "doctor/checks.hpp"
#include "tier/heat/sources.hpp"
#include "tier/posix/text.hpp"

namespace tier::heat {

namespace {

// The doctor's detail minus its note on existing kdamonds, which the slot
// check below states in the source's own words.
std::string vaddr_evidence(const std::string& detail) {
  std::vector<std::string> kept;
  std::size_t begin = 0;
  while (begin <= detail.size()) {
    std::size_t end = detail.find("; ", begin);
    if (end == std::string::npos) end = detail.size();
    std::string part = detail.substr(begin, end - begin);
    if (part.find("kdamond(s) already exist") == std::string::npos) kept.push_back(part);
    begin = end + 2;
  }
  return text::join(kept, "; ");
}

}  // namespace

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
    problems.push_back("no DAMON vaddr: " + vaddr_evidence(vaddr.detail));
  }
  if (!existing) {
    problems.push_back("cannot read " + std::string(kernel::kNrKdamonds));
  } else if (*existing != 0) {
    problems.push_back(std::to_string(*existing) + " kdamond(s) exist, not tier's: left untouched");
  }
  if (!problems.empty()) return {false, text::join(problems, "; ")};
  if (vaddr.status == doctor::Status::error) {
    // Undecidable without creating a kdamond; start() reads avail_operations
    // of the context it creates and refuses cleanly when vaddr is missing.
    return {true, "DAMON sysfs with a free kdamond slot; vaddr support checked at start (" +
                      vaddr.detail + ")"};
  }
  return {true, "DAMON vaddr through sysfs, kdamond slot free (" + vaddr.detail + ")"};
}

}  // namespace tier::heat
