// The check table and the runner: order here is the order of the report.
#include <utility>

#include "checks.hpp"

namespace tier::doctor {

namespace {

using CheckFn = CheckResult (*)(const Context&);

const std::vector<std::pair<std::string_view, CheckFn>>& table() {
  static const std::vector<std::pair<std::string_view, CheckFn>> checks = {
      {"kernel", check_kernel},
      {"btf", check_btf},
      {"bpf_tracepoint", check_bpf_tracepoint},
      {"tp_btf", check_tp_btf},
      {"kprobes", check_kprobes},
      {"pmu", check_pmu},
      {"damon_vaddr", check_damon_vaddr},
      {"damon_paddr", check_damon_paddr},
      {"idle_page", check_idle_page},
      {"soft_dirty", check_soft_dirty},
      {"cgroup_v2_cpuset", check_cgroup_v2_cpuset},
      {"cgroup_v1_cpuset", check_cgroup_v1_cpuset},
      {"numa_balancing", check_numa_balancing},
      {"demotion", check_demotion},
      {"weighted_interleave", check_weighted_interleave},
      {"weighted_interleave_auto", check_weighted_interleave_auto},
      {"systemd", check_systemd},
      {"numa_nodes", check_numa_nodes},
      {"memory_tiering", check_memory_tiering},
      {"damon_node_goals", check_damon_node_goals},
      {"pagemap_scan", check_pagemap_scan},
  };
  return checks;
}

}  // namespace

const char* to_string(Status status) {
  switch (status) {
    case Status::ok:
      return "ok";
    case Status::missing:
      return "missing";
    case Status::error:
      return "error";
  }
  return "error";
}

const char* to_string(BpfProgram program) {
  switch (program) {
    case BpfProgram::tracepoint:
      return "tracepoint/exceptions/page_fault_user";
    case BpfProgram::tp_btf:
      return "tp_btf/page_fault_user";
    case BpfProgram::kprobe:
      return "kprobe/__x64_sys_getpid";
  }
  return "?";
}

const std::vector<std::string_view>& check_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const auto& [name, fn] : table()) out.push_back(name);
    return out;
  }();
  return names;
}

std::vector<CheckResult> run_checks(const SysRoot& root, const Probers& probers) {
  const Context ctx{root, probers};
  std::vector<CheckResult> results;
  for (const auto& [name, fn] : table()) {
    CheckResult result;
    try {
      result = fn(ctx);
    } catch (const std::exception& e) {
      // One broken probe must not hide the other answers.
      result.status = Status::error;
      result.detail = std::string("probe failed: ") + e.what();
    }
    result.name = std::string(name);
    results.push_back(std::move(result));
  }
  return results;
}

std::vector<CheckResult> run_checks(const SysRoot& root) {
  if (!root.is_live()) return run_checks(root, Probers{});
  auto bpf = make_live_bpf_prober();
  auto perf = make_live_perf_prober();
  auto soft_dirty = make_live_soft_dirty_prober();
  return run_checks(root, Probers{bpf.get(), perf.get(), soft_dirty.get()});
}

const CheckResult* find(const std::vector<CheckResult>& results, std::string_view name) {
  for (const auto& result : results) {
    if (result.name == name) return &result;
  }
  return nullptr;
}

}  // namespace tier::doctor
