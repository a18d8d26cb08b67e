// `tierctl run`: applying a RunPlan to the calling process, then exec.
//
// live_machine() answers run_options' Machine questions from libnuma, with
// numactl's own parsers (numa_parse_nodestring / numa_parse_cpustring), so
// "all", "!0", "+0" and the cpuset limits mean what they mean to numactl.
// apply_binding() sets the CPU affinity and the memory policy of the calling
// thread (inherited through exec) with the libnuma calls numactl makes, and
// set_mempolicy for the modes libnuma 2.0.16 does not wrap. exec_command()
// replaces the process: the command's exit status and signals are then the
// launcher's. Failures are RunFailure (exit 1) or an ExecFailure carrying the
// shell's status (127 not found, 126 not executable).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "run_options.hpp"

namespace tierctl::run {

/// The live machine through libnuma (numactl's semantics).
Machine live_machine();

/// Binds the calling process as `binding` says. Throws RunFailure naming
/// the policy and the kernel's error (e.g. a kernel without
/// MPOL_WEIGHTED_INTERLEAVE).
void apply_binding(const Binding& binding);

/// The command cannot be executed; `status` is what a shell would exit with.
struct ExecFailure : std::runtime_error {
  ExecFailure(const std::string& message, int exit_status)
      : std::runtime_error(message), status(exit_status) {}
  int status;
};

/// Checks, before anything is registered or bound, that `program` can be
/// executed the way execvp() would find it. Throws ExecFailure (127 when
/// not found, 126 when found but not executable).
void check_executable(const std::string& program);

/// Adds `env` to the environment and execvp()s `command`. Returns only on
/// failure, by throwing ExecFailure.
[[noreturn]] void exec_command(const std::vector<std::string>& command,
                               const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace tierctl::run
