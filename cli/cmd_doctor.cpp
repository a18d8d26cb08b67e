// `tierctl doctor`: which kernel features tier can use on this machine.
#include <algorithm>
#include <iostream>
#include <memory>

#include <boost/json.hpp>

#include "command.hpp"
#include "tier/doctor/doctor.hpp"
#include "tier/heat/report_json.hpp"
#include "tier/json/json_text.hpp"
#include "tier/kernel_tiering/kernel_tiering.hpp"
#include "usage.hpp"

namespace tierctl {

namespace {

struct DoctorOptions {
  bool json = false;
};

void print_table(std::ostream& out, const std::vector<tier::doctor::CheckResult>& results) {
  std::size_t status_width = std::string_view("STATUS").size();
  std::size_t name_width = std::string_view("NAME").size();
  for (const auto& r : results) {
    status_width = std::max(status_width, std::string_view(to_string(r.status)).size());
    name_width = std::max(name_width, r.name.size());
  }
  auto pad = [](std::string_view text, std::size_t width) {
    return std::string(text) + std::string(width - text.size() + 2, ' ');
  };
  out << pad("STATUS", status_width) << pad("NAME", name_width) << "DETAIL\n";
  std::size_t ok = 0;
  std::size_t missing = 0;
  for (const auto& r : results) {
    out << pad(to_string(r.status), status_width) << pad(r.name, name_width) << r.detail << "\n";
    if (r.status == tier::doctor::Status::ok) {
      ++ok;
      continue;
    }
    if (r.status == tier::doctor::Status::missing) ++missing;
    // Impact sits under DETAIL so the eye can skip it when scanning statuses.
    if (!r.impact.empty()) {
      out << std::string(status_width + name_width + 4, ' ') << "impact: " << r.impact << "\n";
    }
  }
  out << "\n"
      << results.size() << " checks: " << ok << " ok, " << missing << " missing, "
      << results.size() - ok - missing << " error\n";
}

int run_doctor(const GlobalOptions& global, const DoctorOptions& options) {
  // --root is a directory by now (app.cpp checks the global paths).
  tier::SysRoot root;
  if (!global.root.empty()) root = tier::SysRoot(global.root);
  // Live probes (BPF, perf, soft-dirty) run only against the live root.
  auto results = tier::doctor::run_checks(root);
  // The heat sources follow from those features: the same probes
  // `tierctl heat --list-sources` and `--source auto` use.
  const auto sources = tier::heat::probe_sources(root);
  // What the kernel's own tiering is doing (read only), for coordination.
  const auto kernel_tiering = tier::read_kernel_tiering(root);
  if (options.json) {
    auto doc = boost::json::parse(tier::doctor::to_json(results)).as_object();
    doc["heat_sources"] = tier::heat::heat_sources_json(sources);
    doc["kernel_tiering"] = tier::kernel_tiering_json(kernel_tiering);
    std::cout << tier::json_text(doc) << "\n";
  } else {
    if (!root.is_live()) {
      std::cout << "Reading the gathered tree " << root.root().string()
                << ": live probes of this machine's kernel are skipped, and a file the\n"
                << "gatherer did not collect reads as missing.\n\n";
    }
    print_table(std::cout, results);
    std::cout << "\nheat sources:\n";
    tier::heat::print_heat_sources(std::cout, sources);
    std::cout << "\n";
    tier::print_kernel_tiering(std::cout, kernel_tiering);
  }
  return kOk;
}

}  // namespace

void add_doctor_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<DoctorOptions>();
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "Probe the kernel features tier depends on and say what each missing one means.\n"
      "Checks: kernel, btf, bpf_tracepoint, tp_btf, kprobes, pmu, damon_vaddr, damon_paddr,\n"
      "idle_page, soft_dirty, cgroup_v2_cpuset, cgroup_v1_cpuset, numa_balancing, demotion,\n"
      "weighted_interleave, systemd, numa_nodes, memory_tiering (docs/doctor.md).\n"
      "BPF checks really load and attach small programs (ebpf/feature_probe.bpf.c), pmu really\n"
      "opens a cycles counter and soft_dirty really runs the clear_refs/pagemap round trip on\n"
      "a page of its own; these need root. Nothing on the machine is changed: no sysctl or\n"
      "sysfs file is written and DAMON is only read.\n"
      "A last section, kernel tiering, shows what the kernel does with the tiers by itself:\n"
      "NUMA balancing mode and knobs, demotion_enabled, running DAMON schemes, interleave "
      "weights.");
  set_usage(*cmd, "tierctl doctor [--json]");
  cmd->add_flag(
      "--json", options->json,
      "Print {\"checks\":[{\"name\",\"status\",\"detail\",\"impact\"}...], "
      "\"heat_sources\":[{\"name\",\"available\",\"reason\"}...], \"kernel_tiering\":{...}} "
      "instead of the tables (docs/kernel-tiering.md)");
  cmd->footer(
      "STATUS: ok = tier can use it; missing = the kernel lacks it or has it off;\n"
      "error = the probe could not decide (not root, or a live probe with --root).\n"
      "With --root DIR the file checks read the gathered tree and live probes are skipped.\n"
      "Exit status: 0 when probing ran (whatever is missing), 2 on bad arguments.");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_doctor(global, *options); };
  });
}

}  // namespace tierctl
