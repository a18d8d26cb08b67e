// Internal to the doctor: the context every check gets, the check functions
// (one per probed feature, grouped by kernel subsystem in check_*.cpp). Not
// installed; tests go through tier/doctor/doctor.hpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tier/doctor/doctor.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::doctor {

struct Context {
  const SysRoot& root;
  const Probers& probers;
};

// One function per check name; each returns a result carrying that name.
CheckResult check_kernel(const Context& ctx);
CheckResult check_btf(const Context& ctx);
CheckResult check_bpf_tracepoint(const Context& ctx);
CheckResult check_tp_btf(const Context& ctx);
CheckResult check_kprobes(const Context& ctx);
CheckResult check_pmu(const Context& ctx);
CheckResult check_damon_vaddr(const Context& ctx);
CheckResult check_damon_paddr(const Context& ctx);
CheckResult check_idle_page(const Context& ctx);
CheckResult check_soft_dirty(const Context& ctx);
CheckResult check_cgroup_v2_cpuset(const Context& ctx);
CheckResult check_cgroup_v1_cpuset(const Context& ctx);
CheckResult check_numa_balancing(const Context& ctx);
CheckResult check_demotion(const Context& ctx);
CheckResult check_weighted_interleave(const Context& ctx);
CheckResult check_systemd(const Context& ctx);
CheckResult check_numa_nodes(const Context& ctx);
CheckResult check_memory_tiering(const Context& ctx);
CheckResult check_damon_node_goals(const Context& ctx);
CheckResult check_weighted_interleave_auto(const Context& ctx);
CheckResult check_pagemap_scan(const Context& ctx);

/// Whether /proc/kallsyms lists a symbol starting with `prefix` (names are
/// listed without root, only addresses are hidden); nullopt when the file
/// is absent or empty.
std::optional<bool> kallsyms_lists(const SysRoot& root, std::string_view prefix);

/// Detail used by every live-only check when no prober is given.
inline constexpr std::string_view kNotProbed =
    "not probed: reading a gathered tree (--root given), not the running kernel";

}  // namespace tier::doctor
