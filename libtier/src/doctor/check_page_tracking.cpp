// idle_page, soft_dirty: the two per-page access/write trackers user space can
// read, both optional at kernel build time.
#include "checks.hpp"
#include "kernel_config.hpp"
#include "tier/posix/error.hpp"

namespace tier::doctor {

CheckResult check_idle_page(const Context& ctx) {
  CheckResult r;
  constexpr const char* kBitmap = "/sys/kernel/mm/page_idle/bitmap";
  if (ctx.root.exists(kBitmap)) {
    r.status = Status::ok;
    r.detail = std::string(kBitmap) + " present";
    return r;
  }
  r.status = Status::missing;
  r.detail = std::string("no ") + kBitmap + " (CONFIG_IDLE_PAGE_TRACKING off)";
  r.impact = "no idle-page tracking: cold pages are found through DAMON or fault sampling";
  return r;
}

CheckResult check_soft_dirty(const Context& ctx) {
  CheckResult r;
  const std::string impact =
      "no soft-dirty bits: tier cannot cheaply find written pages, so write-heat comes from "
      "fault sampling only";
  if (ctx.probers.soft_dirty == nullptr) {
    r.status = Status::error;
    r.detail = std::string(kNotProbed);
    if (auto config = read_kernel_config(ctx.root)) {
      r.detail += "; " + config->describe("CONFIG_MEM_SOFT_DIRTY");
    }
    r.impact = "unknown whether soft-dirty tracking works";
    return r;
  }
  SoftDirtyOutcome outcome = ctx.probers.soft_dirty->run();
  if (!outcome.run.ok()) {
    r.status = Status::error;
    r.detail = outcome.run.step + " failed: " + posix::errno_text(outcome.run.error);
    r.impact = "soft-dirty test could not run; " + impact;
    return r;
  }
  auto bit = [](bool set) { return set ? "1" : "0"; };
  r.detail = std::string("pagemap bit 55 after write=") + bit(outcome.dirty_after_write) +
             ", after clear_refs 4=" + bit(!outcome.clean_after_clear) +
             ", after rewrite=" + bit(outcome.dirty_after_rewrite);
  if (outcome.clean_after_clear && outcome.dirty_after_rewrite) {
    r.status = Status::ok;
    r.detail = "soft-dirty round trip works: " + r.detail;
    return r;
  }
  // Without CONFIG_MEM_SOFT_DIRTY clear_refs accepts "4" but the bit never
  // sets; a bit that never clears would mean clear_refs is broken instead.
  r.status = Status::missing;
  r.detail = "soft-dirty round trip fails: " + r.detail;
  r.impact = impact;
  return r;
}

}  // namespace tier::doctor
