// tier-sim: replay a generated or recorded access trace through a placement
// policy over a modelled machine and report how close it gets to the oracle
// (docs/simulator.md).
#include <CLI/CLI.hpp>
#include <cmath>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tier/bench/bench.hpp"
#include "tier/policy/policy.hpp"
#include "tier/sim/generators.hpp"
#include "tier/sim/machine.hpp"
#include "tier/sim/report.hpp"
#include "tier/sim/simulator.hpp"
#include "tier/sim/trace_file.hpp"
#include "tier/topology/topology.hpp"

namespace {

constexpr int kUsage = 2;
constexpr int kFailure = 1;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Args {
  std::string policy = "static";
  std::vector<std::string> params;
  std::string trace = "uniform";
  std::string size;  // --size
  std::uint64_t pages = 0;
  std::string page_size = "2M";
  std::string hot;
  double hot_fraction = 0.9;
  double theta = 0.99;
  std::size_t epochs = 60;
  std::size_t samples = 20000;
  std::string fast_bytes;
  std::string slow_bytes;
  std::uint64_t seed = 1;
  std::size_t phase_epochs = 10;
  std::size_t phases = 3;
  std::string offline_size;
  double online_share = 0.5;
  std::size_t grow_epochs = 30;
  double budget_mbps = 0;
  double epoch_s = 1;
  std::size_t ping_pong_window = 10;
  std::string topology;
  unsigned cpu_node = 0;
  std::string write_trace;
  std::string plans;
  std::size_t every = 1;
  bool json = false;
};

std::uint64_t size_arg(const std::string& text, const char* option) {
  const auto bytes = tier::bench::parse_size(text);
  if (!bytes || *bytes == 0) {
    throw UsageError(std::string(option) + ": '" + text + "' is not a size (e.g. 4096, 2M, 16G)");
  }
  return *bytes;
}

// Simulator::run, with each epoch's plan written to `path` as it is made: the
// text a refactor of a policy must leave byte-identical.
tier::sim::SimResult run_writing_plans(tier::sim::Simulator& simulator,
                                       tier::policy::Policy& policy, const std::string& path,
                                       const std::vector<std::size_t>& checkpoints) {
  std::ofstream out(path);
  if (!out) throw UsageError("--plans: cannot write '" + path + "'");
  tier::sim::SimResult result;
  while (!simulator.done()) {
    result.epochs.push_back(simulator.step(policy));
    for (const tier::policy::Move& m : simulator.last_plan().moves) {
      out << result.epochs.back().epoch << ' ' << m.pid << " 0x" << std::hex << m.start << " 0x"
          << m.end << std::dec << ' ' << m.target_node << ' ' << m.workload_id << ' ' << m.reason
          << '\n';
    }
  }
  if (!out.flush()) throw std::runtime_error("--plans: writing '" + path + "' failed");
  result.summary = tier::sim::summarize(result.epochs, checkpoints);
  return result;
}

tier::policy::Params parse_params(const std::vector<std::string>& given) {
  tier::policy::Params params;
  for (const std::string& kv : given) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--param wants KEY=VALUE, got " + kv);
    try {
      std::size_t used = 0;
      const double value = std::stod(kv.substr(eq + 1), &used);
      if (used != kv.size() - eq - 1 || !std::isfinite(value)) throw std::invalid_argument(kv);
      params[kv.substr(0, eq)] = value;
    } catch (const std::exception&) {
      throw UsageError("--param " + kv + ": the value is not a number");
    }
  }
  return params;
}

tier::sim::Trace make_trace(const Args& a) {
  if (a.trace != "uniform" && a.trace != "zipf" && a.trace != "phases" && a.trace != "mix") {
    return tier::sim::read_trace(std::filesystem::path(a.trace));
  }
  tier::sim::TraceShape shape;
  shape.page_bytes = size_arg(a.page_size, "--page-size");
  if ((shape.page_bytes & (shape.page_bytes - 1)) != 0) {
    throw UsageError("--page-size must be a power of two");
  }
  if (a.pages != 0 && !a.size.empty()) throw UsageError("give --pages or --size, not both");
  shape.pages = a.pages != 0     ? a.pages
                : a.size.empty() ? (std::uint64_t{16} << 30) / shape.page_bytes
                                 : size_arg(a.size, "--size") / shape.page_bytes;
  if (shape.pages == 0) throw UsageError("--size is smaller than one page");
  shape.epochs = a.epochs;
  shape.samples_per_epoch = a.samples;
  shape.seed = a.seed;
  shape.epoch_s = a.epoch_s;
  tier::sim::HotSet hot;
  hot.pages = a.hot.empty() ? std::max<std::uint64_t>(1, shape.pages / 8)
                            : size_arg(a.hot, "--hot") / shape.page_bytes;
  hot.fraction = a.hot_fraction;
  try {
    if (a.trace == "uniform") return tier::sim::uniform_trace(shape, hot);
    if (a.trace == "zipf") return tier::sim::zipf_trace(shape, a.theta);
    if (a.trace == "phases") return tier::sim::phase_trace(shape, hot, {a.phase_epochs, a.phases});
    tier::sim::Mix mix;
    mix.offline_pages = a.offline_size.empty()
                            ? shape.pages
                            : size_arg(a.offline_size, "--offline-size") / shape.page_bytes;
    mix.grow_epochs = a.grow_epochs;
    mix.online_share = a.online_share;
    return tier::sim::mix_trace(shape, hot, mix);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::uint64_t footprint_bytes(const tier::sim::Trace& trace) {
  std::uint64_t pages = 0;
  for (const auto& w : trace.workloads) pages += w.pages();
  return pages * trace.page_bytes;
}

tier::sim::Machine make_machine(const Args& a, const tier::sim::Trace& trace) {
  const std::uint64_t total = footprint_bytes(trace);
  if (!a.topology.empty()) {
    tier::TopologyOptions options;
    options.root = tier::SysRoot(a.topology);
    const tier::Topology topology = tier::load_topology(options);
    tier::sim::FromTopologyOptions from;
    if (!a.fast_bytes.empty()) from.fast_capacity_bytes = size_arg(a.fast_bytes, "--fast-bytes");
    return tier::sim::machine_from_topology(topology, from);
  }
  const std::uint64_t fast =
      a.fast_bytes.empty() ? total / 4 : size_arg(a.fast_bytes, "--fast-bytes");
  const std::uint64_t slow = a.slow_bytes.empty() ? total : size_arg(a.slow_bytes, "--slow-bytes");
  return tier::sim::two_tier(fast, slow);
}

int run(int argc, char** argv) {
  CLI::App app{
      "tier-sim - replay an access trace through a placement policy over a modelled machine\n"
      "and report, per epoch, the access-weighted fast-tier share against the oracle's, bytes\n"
      "migrated, ping-pong pages and the modelled mean access latency (docs/simulator.md).",
      "tier-sim"};
  app.failure_message(CLI::FailureMessage::help);
  app.footer(
      "Machine: node 0 (tier 0, CPUs, --fast-bytes, 100 ns) and node 1 (tier 1, CXL-like,\n"
      "--slow-bytes, 250 ns), or --topology DIR (a sysfs tree). Pages are first touched on the\n"
      "CPU node and spill to the next-nearest node.\n\n"
      "Examples:\n"
      "  tier-sim --policy static --trace uniform --size 16G --hot 2G --fast-bytes 4G\n"
      "  tier-sim --policy static --trace zipf --theta 1.1 --pages 1000000 --page-size 4K \\\n"
      "           --fast-bytes 1G --epochs 60 --json\n"
      "  tier-sim --trace phases --phase-epochs 20 --phases 3 --write-trace /tmp/phases.trace\n"
      "  tier-sim --policy static --trace /tmp/phases.trace --fast-bytes 4G\n"
      "  tier-sim --trace mix --size 8G --offline-size 32G --grow-epochs 30 \\\n"
      "           --topology tests/fixtures/sysfs/2s-cxl-hmat\n\n"
      "Exit status: 0 ok, 1 the simulation failed, 2 bad arguments or an invalid trace.");
  Args a;
  const std::string policies = tier::policy::policy_names();
  app.add_option("--policy", a.policy, "Placement policy (" + policies + ")")
      ->capture_default_str();
  app.add_option("--param", a.params, "Policy parameter KEY=VALUE (repeatable)")->type_name("K=V");
  app.add_option("--trace", a.trace,
                 "uniform | zipf | phases | mix | a trace FILE (the generator options are then "
                 "ignored)")
      ->capture_default_str();
  app.add_option("--pages", a.pages, "Workload size in pages (generators)");
  app.add_option("--size", a.size, "Workload size in bytes (default 16G)")->type_name("BYTES");
  app.add_option("--page-size", a.page_size, "Page (region) size, a power of two")
      ->capture_default_str();
  app.add_option("--hot", a.hot, "Hot set size (default size / 8)")->type_name("BYTES");
  app.add_option("--hot-fraction", a.hot_fraction, "Share of accesses to the hot set")
      ->capture_default_str();
  app.add_option("--theta", a.theta, "Zipf exponent")->capture_default_str();
  app.add_option("--epochs", a.epochs, "Epochs to generate")->capture_default_str();
  app.add_option("--samples", a.samples, "Sampled accesses per epoch")->capture_default_str();
  app.add_option("--fast-bytes", a.fast_bytes, "Tier-0 capacity (default footprint / 4)")
      ->type_name("BYTES");
  app.add_option("--slow-bytes", a.slow_bytes, "Tier-1 capacity (default the footprint)")
      ->type_name("BYTES");
  app.add_option("--seed", a.seed, "Generator seed")->capture_default_str();
  app.add_option("--phase-epochs", a.phase_epochs, "phases: epochs per phase")
      ->capture_default_str();
  app.add_option("--phases", a.phases, "phases: distinct hot-set positions (cycled)")
      ->capture_default_str();
  app.add_option("--offline-size", a.offline_size, "mix: offline job's final size (default --size)")
      ->type_name("BYTES");
  app.add_option("--online-share", a.online_share, "mix: share of accesses by the online workload")
      ->capture_default_str();
  app.add_option("--grow-epochs", a.grow_epochs, "mix: epochs until the offline job is full size")
      ->capture_default_str();
  app.add_option("--budget-mbps", a.budget_mbps, "Global migration budget, MB/s (0 = none)")
      ->capture_default_str();
  app.add_option("--epoch-s", a.epoch_s, "Seconds per epoch")->capture_default_str();
  app.add_option("--ping-pong-window", a.ping_pong_window,
                 "A move back to a node left within this many epochs is ping-pong")
      ->capture_default_str();
  app.add_option("--topology", a.topology, "Model the machine of this sysfs root")
      ->type_name("DIR");
  app.add_option("--cpu-node", a.cpu_node, "Node the workloads run on")->capture_default_str();
  app.add_option("--write-trace", a.write_trace, "Also save the trace to FILE")->type_name("FILE");
  app.add_option("--plans", a.plans,
                 "Also write every epoch's planned moves to FILE, one line each "
                 "(epoch, pid, start, end, target node, workload, reason)")
      ->type_name("FILE");
  app.add_option("--every", a.every, "Print every K-th epoch row")->capture_default_str();
  app.add_flag("--json", a.json, "One JSON document instead of the table");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }
  try {
    const tier::policy::PolicyInfo* info = tier::policy::find_policy(a.policy);
    if (info == nullptr) {
      throw UsageError("no policy '" + a.policy + "' (policies: " + policies + ")");
    }
    tier::policy::Params params;
    try {
      params = tier::policy::resolve_params(*info, parse_params(a.params));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (a.epochs == 0) throw UsageError("--epochs must be > 0");
    if (!(a.epoch_s > 0)) throw UsageError("--epoch-s must be > 0");
    const tier::sim::Trace trace = make_trace(a);
    if (!a.write_trace.empty()) tier::sim::write_trace(std::filesystem::path(a.write_trace), trace);
    const tier::sim::Machine machine = make_machine(a, trace);
    tier::sim::SimOptions options;
    options.cpu_node = a.cpu_node;
    options.budget_mbps = a.budget_mbps;
    options.ping_pong_window = a.ping_pong_window;
    std::unique_ptr<tier::policy::Policy> policy = info->make(params);
    tier::sim::Simulator simulator(trace, machine, options);
    const tier::sim::SimResult result =
        a.plans.empty() ? simulator.run(*policy)
                        : run_writing_plans(simulator, *policy, a.plans, options.checkpoints);
    if (a.json) {
      boost::json::object doc = tier::sim::to_json(result);
      doc["policy"] = a.policy;
      doc["trace"] = trace.description;
      doc["page_bytes"] = trace.page_bytes;
      doc["fast_capacity_bytes"] = machine.fast_capacity_bytes();
      std::cout << doc << "\n";
    } else {
      std::cout << "policy " << a.policy << "; trace " << trace.description << "\n"
                << "machine:";
      for (const auto& n : machine.nodes) {
        std::cout << " node" << n.id << " tier " << n.tier << " " << (n.capacity_bytes >> 20)
                  << " MiB " << machine.latency(a.cpu_node, n.id) << " ns;";
      }
      std::cout << " workloads on node " << a.cpu_node << "\n\n";
      tier::sim::print_epochs(std::cout, result.epochs, a.every);
      std::cout << "\n";
      tier::sim::print_summary(std::cout, result.summary);
    }
    return 0;
  } catch (const UsageError& e) {
    std::cerr << "tier-sim: " << e.what() << "\n\n" << app.help();
    return kUsage;
  } catch (const tier::TopologyError& e) {
    std::cerr << "tier-sim: " << e.what() << "\n";
    return kUsage;
  } catch (const tier::sim::TraceFormatError& e) {
    std::cerr << "tier-sim: " << e.what() << "\n";
    return kUsage;
  } catch (const std::invalid_argument& e) {
    // An inconsistent trace file or a machine/option the model refuses
    // (e.g. --cpu-node naming a node without CPUs).
    std::cerr << "tier-sim: " << e.what() << "\n";
    return kUsage;
  } catch (const std::exception& e) {
    std::cerr << "tier-sim: error: " << e.what() << "\n";
    return kFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  return run(argc, argv);
}
