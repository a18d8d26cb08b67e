// Internal to the doctor: the context every check gets, the check functions
// (one per probed feature, grouped by kernel subsystem in check_*.cpp). Not
// installed; tests go through tier/doctor/doctor.hpp.
#pragma once

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

/// Detail used by every live-only check when no prober is given.
inline constexpr std::string_view kNotProbed =
    "not probed: reading a gathered tree (--root given), not the running kernel";

}  // namespace tier::doctor
