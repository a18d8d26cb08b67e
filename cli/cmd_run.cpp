// `tierctl run`: numactl for tiered machines. Binds CPUs and memory like
// numactl (run_options.hpp validates, run_exec.hpp applies), registers the
// process with tierd when it runs, then execs the command in place.
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <utility>

#include "command.hpp"
#include "daemon_client.hpp"
#include "run_exec.hpp"
#include "run_options.hpp"
#include "tier/json/json_text.hpp"
#include "usage.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;
using run::BindFlag;
using run::MemPolicy;

struct RunCli {
  CLI::App* cmd = nullptr;
  run::RunRequest request;
  bool verbose = false;
  std::vector<std::string> command;  // CMD after `--`
  int localalloc_count = 0;          // occurrences; their order is in parse_order()
  // The numactl-style options: CLI11 keeps each one's values, parse_order()
  // the sequence in which they were typed (numactl's last CPU binding wins).
  struct Bind {
    CLI::Option* option;
    BindFlag::Kind kind;
    MemPolicy policy;
  };
  std::vector<Bind> binds;
};

/// The flags in command-line order, each with its own value.
std::vector<BindFlag> ordered_binds(const RunCli& cli) {
  std::vector<BindFlag> flags;
  std::map<const CLI::Option*, std::size_t> seen;
  for (const CLI::Option* option : cli.cmd->parse_order()) {
    for (const RunCli::Bind& bind : cli.binds) {
      if (bind.option != option) continue;
      const std::size_t index = seen[option]++;
      const auto& values = option->results();
      const bool is_flag = bind.policy == MemPolicy::local;
      flags.push_back({bind.kind, bind.policy, "--" + option->get_single_name(),
                       is_flag || index >= values.size() ? "" : values[index]});
    }
  }
  return flags;
}

json::object register_params(const run::RunPlan& plan) {
  json::object params;
  params["pid"] = static_cast<long long>(getpid());
  // tierd would name the workload after this process's comm, "tierctl",
  // which is about to become CMD: name it after CMD now.
  if (!plan.command.empty()) {
    params["name"] = std::filesystem::path(plan.command.front()).filename().string();
  }
  if (plan.klass) params["class"] = *plan.klass;
  if (plan.pool) params["pool"] = *plan.pool;
  if (plan.quota) params["quota"] = *plan.quota;
  return params;
}

/// Registers this process (the pid the command keeps after exec). False
/// when no tierd answers; DaemonError (tierd refused) propagates.
bool register_with_tierd(const GlobalOptions& global, const run::RunPlan& plan, bool verbose) {
  try {
    json::value result = daemon_request(global.socket, "workloads.register", register_params(plan));
    if (verbose)
      std::cerr << "tierctl run: registered with tierd: " << tier::json_text(result) << "\n";
    return true;
  } catch (const DaemonUnreachable& e) {
    if (!plan.needs_daemon.empty()) {
      throw run::RunFailure(
          plan.needs_daemon.front() + " needs tierd (" +
          (e.not_running() ? "not running at " + global.socket : std::string(e.what())) +
          "); start it or drop the option");
    }
    if (verbose) std::cerr << "tierctl run: tierd not running; binding locally\n";
    return false;
  }
}

void unregister_quietly(const GlobalOptions& global) {
  try {
    daemon_request(global.socket, "workloads.unregister",
                   json::object{{"id", static_cast<long long>(getpid())}});
  } catch (const std::exception&) {
    // Best effort: tierd drops workloads whose pid is gone anyway.
  }
}

std::filesystem::path own_bindir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path(".") : exe.parent_path();
}

int launch(const GlobalOptions& global, const RunCli& cli, const TopologyLoader& load_topology) {
  run::RunRequest request = cli.request;
  request.binds = ordered_binds(cli);
  request.command = cli.command;
  try {
    const run::RunPlan plan =
        run::make_plan(request, run::live_machine(), [&] { return load_topology(global); });
    std::vector<std::pair<std::string, std::string>> env;
    if (request.preload) {
      env = run::preload_environment(run::preload_search_dirs(own_bindir()), *request.preload,
                                     std::getenv("LD_PRELOAD"));
      // `auto` asks tierd for the class: the same tierd this launcher talks to.
      env.emplace_back("TIER_PRELOAD_SOCKET", global.socket);
    }
    run::check_executable(plan.command.front());
    const bool registered = register_with_tierd(global, plan, cli.verbose);
    try {
      // With tierd running it places the pool; without, numa:N binds here.
      run::apply_binding(!registered && plan.pool_binding ? *plan.pool_binding : plan.binding);
      run::exec_command(plan.command, env);
    } catch (...) {
      if (registered) unregister_quietly(global);
      throw;
    }
  } catch (const run::RunUsageError& e) {
    throw UsageError(e.what());  // printed with run's usage line, exit 2 (app.cpp)
  } catch (const run::RunFailure& e) {
    std::cerr << "tierctl run: " << e.what() << "\n";
    return kFailure;
  } catch (const run::ExecFailure& e) {
    std::cerr << "tierctl run: " << e.what() << "\n";
    return e.status;
  } catch (const DaemonError& e) {
    std::cerr << "tierctl run: " << describe(e) << "\n";
    return exit_code(e);  // 2 when tierd found the input bad (bad_request)
  }
}

constexpr const char* kFooter =
    R"(CMD starts after the first argument that is not an option, or after `--` (needed
when CMD's first word starts with '-'); CMD's own flags are left alone.

Binding (numactl's flags and meanings; NODES and CPUS are numactl lists such as
"0-1", "0,2", "all", "!0" (all but 0), "+0" (relative to the allowed set)):
  At most one memory policy (-m -p -P -i -w -l), as numactl. -N and -C may both be
  given: as in numactl the later one decides the CPUs. Nodes must exist, CPUs must be
  ones tierctl itself may run on (its affinity and cpuset), -N nodes must have CPUs.

tierd: when tierd answers at --socket, the process is registered first
(workloads.register with its pid and --class/--pool/--quota when given), then the
flags above are applied and CMD replaces tierctl (same pid). Without tierd the flags
are applied all the same, like numactl; --class, --quota and --pool immovable:K /
exclusive:K need tierd and fail (exit 1); --pool shared is a no-op; --pool numa:N
binds the CPUs to node N's and prefers memory on N (falls back to other nodes when N
is full, unlike --membind).

--near DEVICE: a device from `tierctl topo` by name (eth0, nvme0n1, card0) or PCI
address (0000:3b:00.0 or 3b:00.0): CPUs bound to its node's CPUs (the nearest CPUs
when the node has none) and memory bound to its node, for GPUDirect/RDMA locality.
--root/--hwloc-xml choose the topology it is looked up in.

Exit status: CMD's own (tierctl execs it, so a signal kills CMD as it would under
numactl); 2 bad usage or input, also input tierd refuses as bad_request (nothing is
started or registered); 1 a runtime failure (tierd needed or refused, a policy the
kernel lacks); 127 CMD not found; 126 CMD not executable.

Examples:
  tierctl run --physcpubind 1 --membind 0 -- ./server --port 80
  tierctl run -N 0 -m 0 make -j2
  tierctl run --interleave all -- ./stream
  tierctl run --near mlx5_0 -- ./rdma_bench
  tierctl run --class online --quota 8G -- redis-server
  tierctl run --pool numa:1 -- ./batch-job)";

}  // namespace

void add_run_command(CLI::App& app, const GlobalOptions& global, Action& action,
                     TopologyLoader load_topology) {
  auto cli = std::make_shared<RunCli>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Run a command with numactl-style CPU and memory binding, registered with tierd when it "
      "runs\n"
      "  tierctl run [OPTIONS] [--] CMD [ARGS...]");
  cli->cmd = cmd;
  set_usage(*cmd,
            "tierctl run [OPTIONS] [-N NODES] [-C CPUS] [--membind NODES | --interleave NODES | "
            "...] [--] CMD [ARGS...]");
  // Everything from CMD's first word on is CMD's (its own flags included):
  // after the first positional CLI11 takes every word as positional.
  cmd->positionals_at_end(true);
  cmd->fallthrough(false);
  cmd->footer(kFooter);

  cmd->add_option("--class", cli->request.klass, "Service class for tierd: online or offline")
      ->type_name("CLASS");
  cmd->add_option("--pool", cli->request.pool,
                  "CPU pool: shared, numa:N, immovable:K or exclusive:K (K CPUs)")
      ->type_name("POOL");
  cmd->add_option("--quota", cli->request.quota,
                  "Fast-tier quota for tierd: bytes (8G, 512M) or a share (25%)")
      ->type_name("SIZE|PCT");

  struct Spec {
    const char* names;
    const char* help;
    const char* type;
    BindFlag::Kind kind;
    MemPolicy policy;
  };
  const Spec specs[] = {
      {"-N,--cpunodebind", "Run on the CPUs of NODES", "NODES", BindFlag::Kind::cpunodebind,
       MemPolicy::none},
      {"-C,--physcpubind", "Run on CPUS", "CPUS", BindFlag::Kind::physcpubind, MemPolicy::none},
      {"-m,--membind", "Allocate memory only from NODES", "NODES", BindFlag::Kind::memory,
       MemPolicy::bind},
      {"-p,--preferred", "Prefer memory from NODE, fall back to others", "NODE",
       BindFlag::Kind::memory, MemPolicy::preferred},
      {"-P,--preferred-many", "Prefer memory from NODES (Linux 5.15+)", "NODES",
       BindFlag::Kind::memory, MemPolicy::preferred_many},
      {"-i,--interleave", "Interleave memory page by page over NODES", "NODES",
       BindFlag::Kind::memory, MemPolicy::interleave},
      {"-w,--weighted-interleave", "Interleave over NODES by the kernel's weights (Linux 6.9+)",
       "NODES", BindFlag::Kind::memory, MemPolicy::weighted_interleave},
  };
  for (const Spec& spec : specs) {
    CLI::Option* option = cmd->add_option(spec.names, spec.help)
                              ->type_name(spec.type)
                              ->expected(1)
                              ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                              ->group("Binding (numactl)");
    cli->binds.push_back({option, spec.kind, spec.policy});
  }
  CLI::Option* local = cmd->add_flag("-l,--localalloc", cli->localalloc_count,
                                     "Allocate memory on the node of the CPU that asks")
                           ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                           ->group("Binding (numactl)");
  cli->binds.push_back({local, BindFlag::Kind::memory, MemPolicy::local});

  cmd->add_option("--near", cli->request.near,
                  "Bind CPUs and memory to the NUMA node of DEVICE (name or PCI address)")
      ->type_name("DEVICE");
  cmd->add_option("--preload", cli->request.preload,
                  "LD_PRELOAD libtierpreload.so with TIER_PRELOAD_POLICY=POLICY")
      ->type_name("POLICY");
  cmd->add_flag("-v,--verbose", cli->verbose, "Say whether tierd registered the process");
  cmd->add_option("CMD", cli->command, "The command and its arguments")->type_name("CMD ARGS");

  cmd->callback([&global, &action, cli, load = std::move(load_topology)] {
    action = [&global, cli, load] { return launch(global, *cli, load); };
  });
}

}  // namespace tierctl
