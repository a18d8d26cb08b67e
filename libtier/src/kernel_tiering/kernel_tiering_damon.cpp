// DAMON as the kernel runs it: the kdamonds of DAMON sysfs with their
// contexts, targets and schemes, and the DAMON modules that run kdamonds of
// their own. Read only: tier never writes DAMON sysfs here (a write of
// `update_schemes_stats` would refresh the stats, but it belongs to whoever
// runs that kdamond), so scheme stats are as fresh as their owner left them.
#include <array>

#include "kernel_tiering/kernel_tiering_files.hpp"

namespace tier {

const char* to_string(DamonEffect effect) {
  switch (effect) {
    case DamonEffect::none:
      return "none";
    case DamonEffect::migrate:
      return "migrate";
    case DamonEffect::reclaim:
      return "reclaim";
    case DamonEffect::lru:
      return "lru";
  }
  return "none";
}

DamonEffect damon_effect(std::string_view action) {
  if (action == "migrate_hot" || action == "migrate_cold") return DamonEffect::migrate;
  if (action == "pageout") return DamonEffect::reclaim;
  // cold is MADV_COLD (deactivate): like lru_deprio, it steers reclaim.
  if (action == "lru_prio" || action == "lru_deprio" || action == "cold") return DamonEffect::lru;
  return DamonEffect::none;
}

namespace kernel_tiering {

namespace {

constexpr std::string_view kAdmin = "/sys/kernel/mm/damon/admin";

std::optional<std::uint64_t> optional_u64(const SysRoot& root, const std::string& path) {
  auto value = read_optional_int(root, path);
  if (!value || *value < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

DamonScheme read_scheme(const SysRoot& root, const std::string& dir, unsigned index) {
  DamonScheme s;
  s.index = index;
  s.action = read_word(root, dir + "/action", dir + "/action missing");
  // target_nid exists since 6.11 (migrate_hot/migrate_cold); -1 = unset.
  if (auto nid = read_optional_int(root, dir + "/target_nid")) {
    s.target_nid = static_cast<int>(*nid);
  }
  for (unsigned d : numbered_entries(root, dir + "/dests", "")) {
    std::string ddir = dir + "/dests/" + std::to_string(d);
    auto id = read_optional_int(root, ddir + "/id");
    if (!id) continue;
    s.dests.push_back({static_cast<int>(*id), optional_u64(root, ddir + "/weight").value_or(0)});
  }
  s.apply_interval_us = optional_u64(root, dir + "/apply_interval_us");
  s.quota_bytes = optional_u64(root, dir + "/quotas/bytes");
  s.quota_ms = optional_u64(root, dir + "/quotas/ms");
  s.nr_applied = optional_u64(root, dir + "/stats/nr_applied");
  s.sz_applied = optional_u64(root, dir + "/stats/sz_applied");
  return s;
}

DamonContext read_context(const SysRoot& root, const std::string& dir, unsigned index) {
  DamonContext c;
  c.index = index;
  c.operations = read_word(root, dir + "/operations", dir + "/operations missing");
  for (unsigned t : numbered_entries(root, dir + "/targets", "")) {
    // paddr targets have pid_target 0 (unused): list real pids only.
    auto pid = read_optional_int(root, dir + "/targets/" + std::to_string(t) + "/pid_target");
    if (pid && *pid > 0) c.target_pids.push_back(static_cast<long>(*pid));
  }
  for (unsigned k : numbered_entries(root, dir + "/schemes", "")) {
    c.schemes.push_back(read_scheme(root, dir + "/schemes/" + std::to_string(k), k));
  }
  return c;
}

Kdamond read_kdamond(const SysRoot& root, const std::string& dir, unsigned index) {
  Kdamond k;
  k.index = index;
  k.state = read_word(root, dir + "/state", dir + "/state missing");
  if (auto pid = read_optional_int(root, dir + "/pid"); pid && *pid > 0) {
    k.pid = static_cast<long>(*pid);
  }
  for (unsigned c : numbered_entries(root, dir + "/contexts", "")) {
    k.contexts.push_back(read_context(root, dir + "/contexts/" + std::to_string(c), c));
  }
  return k;
}

struct ModuleInfo {
  std::string_view name;
  DamonEffect effect;
};
// DAMON_RECLAIM pages out cold regions; DAMON_LRU_SORT reorders the LRU
// lists (lru_prio/lru_deprio); DAMON_STAT (6.17) only monitors.
constexpr std::array<ModuleInfo, 3> kModules{{{"damon_reclaim", DamonEffect::reclaim},
                                              {"damon_lru_sort", DamonEffect::lru},
                                              {"damon_stat", DamonEffect::none}}};

}  // namespace

DamonUse read_damon(const SysRoot& root) {
  DamonUse use;
  use.sysfs = root.exists(kAdmin);
  if (!use.sysfs) {
    use.why_not = "no " + std::string(kAdmin) + " (DAMON or CONFIG_DAMON_SYSFS not built)";
  } else {
    const std::string kdamonds = std::string(kAdmin) + "/kdamonds";
    for (unsigned k : numbered_entries(root, kdamonds, "")) {
      use.kdamonds.push_back(read_kdamond(root, kdamonds + "/" + std::to_string(k), k));
    }
  }
  for (const auto& info : kModules) {
    std::string params = "/sys/module/" + std::string(info.name) + "/parameters";
    if (!root.exists(params)) continue;
    DamonModule m;
    m.name = std::string(info.name);
    m.effect = info.effect;
    m.enabled = read_bool(root, params + "/enabled", params + "/enabled missing");
    if (auto pid = read_optional_int(root, params + "/kdamond_pid"); pid && *pid > 0) {
      m.kdamond_pid = static_cast<long>(*pid);
    }
    use.modules.push_back(std::move(m));
  }
  return use;
}

}  // namespace kernel_tiering

}  // namespace tier
