// damon_vaddr, damon_paddr: which DAMON operations sets the kernel can run.
//
// The authoritative answer is `avail_operations`, which only exists inside a
// kdamond context. tier never writes DAMON sysfs here (creating or touching a
// kdamond could disturb one the machine already runs), so it reads the file
// of an existing context when there is one, else falls back to the kernel
// config, else to the symbols of the operations set in /proc/kallsyms, and
// says in the detail which source decided.
#include <sstream>

#include "checks.hpp"
#include "kernel_config.hpp"
#include "tier/posix/text.hpp"

namespace tier::doctor {

namespace {

constexpr std::string_view kAdmin = "/sys/kernel/mm/damon/admin";

struct DamonFacts {
  bool sysfs = false;
  std::vector<std::string> kdamonds;  // "0: on" ...
  std::optional<std::string> avail;   // contents of the first avail_operations found
  std::string avail_path;             // where it was found, relative to admin/
  std::optional<KernelConfig> config;
};

DamonFacts gather(const SysRoot& root) {
  DamonFacts facts;
  facts.sysfs = root.exists(kAdmin);
  facts.config = read_kernel_config(root);
  if (!facts.sysfs) return facts;
  const std::string kdamonds = std::string(kAdmin) + "/kdamonds";
  for (unsigned k : numbered_entries(root, kdamonds, "")) {
    std::string dir = kdamonds + "/" + std::to_string(k);
    facts.kdamonds.push_back(std::to_string(k) + ": " +
                             root.read(dir + "/state").value_or("state unknown"));
    for (unsigned c : numbered_entries(root, dir + "/contexts", "")) {
      std::string rel = "kdamonds/" + std::to_string(k) + "/contexts/" + std::to_string(c);
      if (facts.avail) break;
      if (auto avail = root.read(std::string(kAdmin) + "/" + rel + "/avail_operations")) {
        facts.avail = *avail;
        facts.avail_path = rel + "/avail_operations";
      }
    }
  }
  return facts;
}

// Each operations set is a separate object (mm/damon/vaddr.c, paddr.c) whose
// functions are named damon_va_* / damon_pa_*; kallsyms lists them whenever
// the set is built in.
std::optional<bool> kallsyms_has(const SysRoot& root, std::string_view ops) {
  return kallsyms_lists(root, ops == "vaddr" ? "damon_va_" : "damon_pa_");
}

bool lists(const std::string& avail, std::string_view ops) {
  std::istringstream words(avail);
  std::string word;
  while (words >> word) {
    if (word == ops) return true;
  }
  return false;
}

CheckResult judge(const SysRoot& root, std::string_view ops, std::string_view option,
                  std::string_view impact) {
  DamonFacts facts = gather(root);
  CheckResult r;
  std::vector<std::string> detail;
  if (!facts.sysfs) {
    r.status = Status::missing;
    detail.push_back("no " + std::string(kAdmin) + " (DAMON or CONFIG_DAMON_SYSFS not built)");
  } else if (facts.avail) {
    r.status = lists(*facts.avail, ops) ? Status::ok : Status::missing;
    std::string avail = *facts.avail;
    for (char& c : avail) {
      if (c == '\n') c = ' ';
    }
    detail.push_back(facts.avail_path + " lists: " + avail);
  } else if (auto built = facts.config ? facts.config->enabled(option) : std::nullopt) {
    r.status = *built ? Status::ok : Status::missing;
    detail.push_back("no kdamond context to read avail_operations from; decided by kernel config");
  } else if (auto symbols = kallsyms_has(root, ops)) {
    r.status = *symbols ? Status::ok : Status::missing;
    detail.push_back(
        "no kdamond context to read avail_operations from and no kernel config; decided by "
        "/proc/kallsyms: " +
        std::string(ops == "vaddr" ? "damon_va_*" : "damon_pa_*") +
        (*symbols ? " symbols present" : " symbols absent"));
  } else {
    r.status = Status::error;
    detail.push_back(
        "DAMON sysfs present, but no existing context to read avail_operations from, no kernel "
        "config and no /proc/kallsyms; tier does not create a kdamond to find out");
  }
  if (facts.config) detail.push_back(facts.config->describe(option));
  if (!facts.kdamonds.empty()) {
    detail.push_back(std::to_string(facts.kdamonds.size()) + " kdamond(s) already exist (" +
                     text::join(facts.kdamonds, ", ") + "), not tier's: left untouched");
  }
  r.detail = text::join(detail, "; ");
  if (r.status != Status::ok) r.impact = std::string(impact);
  return r;
}

}  // namespace

CheckResult check_damon_vaddr(const Context& ctx) {
  return judge(ctx.root, "vaddr", "CONFIG_DAMON_VADDR",
               "no per-process DAMON monitoring: per-workload heat comes from page faults and "
               "eBPF sampling instead");
}

CheckResult check_damon_paddr(const Context& ctx) {
  return judge(ctx.root, "paddr", "CONFIG_DAMON_PADDR",
               "no physical-address DAMON: no DAMOS migrate_hot/migrate_cold schemes, "
               "promotion/demotion is done by tier's own migration only");
}

}  // namespace tier::doctor
