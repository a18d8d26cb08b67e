// tierctl-full: every tierctl command. The front `tierctl` (front_main.cpp)
// execs this for all but the `run` it can do alone.
#include "app.hpp"

namespace tierctl {

tier::TopologyOptions topology_options(const GlobalOptions& global) {
  tier::TopologyOptions options;
  if (!global.root.empty()) options.root = tier::SysRoot(global.root);
  if (!global.hwloc_xml.empty()) options.hwloc_xml = global.hwloc_xml;
  return options;
}

}  // namespace tierctl

int main(int argc, char** argv) {
  using namespace tierctl;
  GlobalOptions global;
  const std::unique_ptr<CLI::App> app = make_app(global);
  CLI::App& root = *app;
  Action action;
  add_topo_command(root, global, action);
  add_doctor_command(root, global, action);
  add_stats_command(root, global, action);
  add_migrate_command(root, global, action);
  add_bench_command(root, global, action);
  add_heat_command(root, global, action);
  add_status_command(root, global, action);
  add_workloads_command(root, global, action);
  add_policy_command(root, global, action);
  add_pause_commands(root, global, action);
  add_pools_command(root, global, action);
  add_ps_command(root, global, action);
  add_run_command(root, global, action, [](const GlobalOptions& options) {
    return tier::load_topology(topology_options(options));
  });
  return parse_and_run(root, global, action, argc, argv);
}
