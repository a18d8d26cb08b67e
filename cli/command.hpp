// Shared plumbing for tierctl subcommands: the global options every command
// sees, and the registration signature each subcommand file implements.
//
// Each subcommand lives in its own cmd_<name>.cpp, adds itself to the CLI11 app
// and stores in `run` the action to perform after a successful parse. main()
// turns parse errors into exit code 2 with usage, per project convention.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>

#include "tier/topology/topology.hpp"

namespace tierctl {

/// Exit codes shared by every subcommand (docs/cli.md, "Exit codes"): 0 it
/// worked, 1 the operation failed (the system or tierd said no), 2 bad usage
/// or bad input (tierctl's or tierd's bad_request). `run` passes its
/// command's own status through.
enum ExitCode : int { kOk = 0, kFailure = 1, kUsage = 2 };

struct GlobalOptions {
  std::string root;       // --root / $TIER_ROOT: read /sys and /proc under this dir
  std::string hwloc_xml;  // --hwloc-xml: load an lstopo XML export
  std::string socket = "/run/tier/tierd.sock";  // --socket: tierd control socket
};

/// The action a subcommand performs; returns the process exit code.
using Action = std::function<int()>;

/// Error for bad user input discovered after parsing (e.g. --root not a sysfs
/// tree, no such process): printed with the command's usage line, exit
/// kUsage, JSON code "bad_input". A value refused by the grammar
/// (tier::values::ValueError) is reported the same way.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The operation failed (permission, a source that cannot start, a file that
/// cannot be written): printed as "tierctl: <what>", exit kFailure. `code` is
/// the JSON error code: "failed", or "permission" when access was denied.
struct Failure : std::runtime_error {
  explicit Failure(const std::string& message, std::string error_code = "failed")
      : std::runtime_error(message), code(std::move(error_code)) {}
  std::string code;
};

/// Topology options from the global flags; throws UsageError on a bad --root.
tier::TopologyOptions topology_options(const GlobalOptions& global);

void add_topo_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_doctor_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_stats_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_migrate_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_bench_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_heat_command(CLI::App& app, const GlobalOptions& global, Action& action);
// Commands that talk to tierd over --socket (docs/api.md).
void add_status_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_workloads_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_policy_command(CLI::App& app, const GlobalOptions& global, Action& action);
/// pools (pools.list) and ps (workloads with their allowed CPUs and nodes).
void add_pools_command(CLI::App& app, const GlobalOptions& global, Action& action);
void add_ps_command(CLI::App& app, const GlobalOptions& global, Action& action);
/// pause, resume and reload.
void add_pause_commands(CLI::App& app, const GlobalOptions& global, Action& action);
/// How `run --near` gets the topology: tierctl-full loads it through libtier;
/// the front, which does not link libtier, hands the command line over to
/// tierctl-full instead (nothing has been bound or registered by then).
using TopologyLoader = std::function<tier::Topology(const GlobalOptions&)>;
/// `run`: numactl-style launcher, registers with tierd when it runs.
void add_run_command(CLI::App& app, const GlobalOptions& global, Action& action,
                     TopologyLoader load_topology);

}  // namespace tierctl
