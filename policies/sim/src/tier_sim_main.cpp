// tier-sim: replay a generated or recorded access trace through a placement
// policy over a modelled machine and report how close it gets to the oracle
// (docs/simulator.md).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tier/json/json_text.hpp"
#include "tier/policy/policy.hpp"
#include "tier/sim/generators.hpp"
#include "tier/sim/machine.hpp"
#include "tier/sim/report.hpp"
#include "tier/sim/simulator.hpp"
#include "tier/sim/trace_file.hpp"
#include "tier/topology/topology.hpp"
#include "tier/values/values.hpp"

namespace {

constexpr int kUsage = 2;
constexpr int kFailure = 1;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace values = tier::values;

constexpr auto kNoLimit = std::numeric_limits<std::uint64_t>::max();

/// The flags as typed, parsed after CLI11 is done so every value goes
/// through the value grammar (tier/values/values.hpp): empty, negative and
/// out-of-range texts are refused naming the flag and the range (exit 2).
class FlagTexts {
 public:
  explicit FlagTexts(CLI::App& app) : app_(app) {}
  CLI::Option* add(const std::string& flag, const std::string& help, const std::string& type) {
    return app_
        .add_option_function<std::string>(
            flag, [this, flag](const std::string& text) { texts_[flag] = text; }, help)
        ->type_name(type);
  }
  /// The text given for `flag`, nullptr when it was not given.
  const std::string* get(const std::string& flag) const {
    auto it = texts_.find(flag);
    return it == texts_.end() ? nullptr : &it->second;
  }

 private:
  CLI::App& app_;
  std::map<std::string, std::string> texts_;
};

struct Args {
  std::string policy = "static";
  std::vector<std::string> params;
  std::string trace = "uniform";
  std::optional<std::uint64_t> size;  // --size
  std::optional<std::uint64_t> pages;
  std::uint64_t page_size = 2ull << 20;
  std::optional<std::uint64_t> hot;
  double hot_fraction = 0.9;
  double theta = 0.99;
  std::size_t epochs = 60;
  std::size_t samples = 20000;
  std::optional<std::uint64_t> fast_bytes;
  std::optional<std::uint64_t> slow_bytes;
  std::uint64_t seed = 1;
  std::size_t phase_epochs = 10;
  std::size_t phases = 3;
  std::optional<std::uint64_t> offline_size;
  double online_share = 0.5;
  std::size_t grow_epochs = 30;
  std::size_t scan_every = 10;
  double scan_share = 0.5;
  double budget_mbps = 0;
  double epoch_s = 1;
  std::size_t ping_pong_window = 10;
  std::string topology;
  std::int64_t cpu_node = 0;  // checked against the machine's nodes once it is made
  std::string write_trace;
  std::string plans;
  std::size_t every = 1;
  bool json = false;
};

bool is_generator(const std::string& trace) {
  return trace == "uniform" || trace == "zipf" || trace == "phases" || trace == "mix" ||
         trace == "scan";
}

/// `args` with every flag of `flags` given on the command line parsed in.
void read_flags(const FlagTexts& flags, Args& a) {
  auto count = [&](const char* flag, auto& out, std::uint64_t min) {
    if (const std::string* t = flags.get(flag)) {
      out = static_cast<std::remove_reference_t<decltype(out)>>(
          values::parse_count(flag, *t, min, kNoLimit));
    }
  };
  auto size = [&](const char* flag, auto& out) {
    if (const std::string* t = flags.get(flag)) out = values::parse_size(flag, *t, 1, kNoLimit);
  };
  auto ratio = [&](const char* flag, double& out) {
    if (const std::string* t = flags.get(flag)) out = values::parse_ratio(flag, *t);
  };
  auto path = [&](const char* flag, std::string& out, auto check) {
    if (const std::string* t = flags.get(flag)) {
      check(flag, std::filesystem::path(*t));
      out = *t;
    }
  };
  auto creatable_file = [](const char* flag, const std::filesystem::path& p) {
    values::require_creatable(flag, p, values::PathKind::file);
  };
  count("--pages", a.pages, 1);
  size("--size", a.size);
  if (const std::string* t = flags.get("--page-size")) {
    a.page_size = values::parse_size("--page-size", *t, 1, 1ull << 30);
    if ((a.page_size & (a.page_size - 1)) != 0) {
      throw values::ValueError("--page-size", *t, "expected a power of two from 1 to 1G");
    }
  }
  size("--hot", a.hot);
  ratio("--hot-fraction", a.hot_fraction);
  if (const std::string* t = flags.get("--theta")) {
    a.theta = values::parse_decimal("--theta", *t, 0, INFINITY);
  }
  count("--epochs", a.epochs, 1);
  count("--samples", a.samples, 0);
  size("--fast-bytes", a.fast_bytes);
  size("--slow-bytes", a.slow_bytes);
  count("--seed", a.seed, 0);
  count("--phase-epochs", a.phase_epochs, 1);
  count("--phases", a.phases, 1);
  size("--offline-size", a.offline_size);
  ratio("--online-share", a.online_share);
  count("--grow-epochs", a.grow_epochs, 0);
  count("--scan-every", a.scan_every, 1);
  ratio("--scan-share", a.scan_share);
  if (const std::string* t = flags.get("--budget-mbps")) {
    a.budget_mbps = values::parse_decimal("--budget-mbps", *t, 0, 1'000'000);  // 0 = none
  }
  if (const std::string* t = flags.get("--epoch-s")) {
    a.epoch_s = values::parse_decimal("--epoch-s", *t, 0, INFINITY, true);
  }
  count("--ping-pong-window", a.ping_pong_window, 0);
  path("--topology", a.topology, [](const char* flag, const std::filesystem::path& p) {
    values::require_path(flag, p, values::PathKind::directory);
  });
  if (const std::string* t = flags.get("--cpu-node")) {
    a.cpu_node =
        values::parse_integer("--cpu-node", *t, 0, std::numeric_limits<std::int64_t>::max());
  }
  path("--write-trace", a.write_trace, creatable_file);
  path("--plans", a.plans, creatable_file);
  count("--every", a.every, 1);
  if (!is_generator(a.trace)) {
    values::require_path("--trace", std::filesystem::path(a.trace), values::PathKind::file);
  }
}

/// --cpu-node, checked against the nodes of the modelled machine.
unsigned cpu_node(const Args& a, const tier::sim::Machine& machine) {
  std::vector<unsigned> ids;
  for (const auto& n : machine.nodes) ids.push_back(n.id);
  values::require_existing("--cpu-node", a.cpu_node, values::IdKind::node,
                           tier::CpuList(std::move(ids)));
  return static_cast<unsigned>(a.cpu_node);
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
    // The policy's own bounds are checked by resolve_params.
    params[kv.substr(0, eq)] = values::parse_decimal("--param " + kv.substr(0, eq),
                                                     kv.substr(eq + 1), -INFINITY, INFINITY);
  }
  return params;
}

tier::sim::Trace make_trace(const Args& a) {
  if (!is_generator(a.trace)) return tier::sim::read_trace(std::filesystem::path(a.trace));
  tier::sim::TraceShape shape;
  shape.page_bytes = a.page_size;
  if (a.pages && a.size) throw UsageError("give --pages or --size, not both");
  shape.pages = a.pages ? *a.pages : a.size.value_or(std::uint64_t{16} << 30) / shape.page_bytes;
  if (shape.pages == 0) throw UsageError("--size is smaller than one page");
  shape.epochs = a.epochs;
  shape.samples_per_epoch = a.samples;
  shape.seed = a.seed;
  shape.epoch_s = a.epoch_s;
  tier::sim::HotSet hot;
  hot.pages = a.hot ? *a.hot / shape.page_bytes : std::max<std::uint64_t>(1, shape.pages / 8);
  hot.fraction = a.hot_fraction;
  try {
    if (a.trace == "uniform") return tier::sim::uniform_trace(shape, hot);
    if (a.trace == "zipf") return tier::sim::zipf_trace(shape, a.theta);
    if (a.trace == "phases") return tier::sim::phase_trace(shape, hot, {a.phase_epochs, a.phases});
    if (a.trace == "scan") return tier::sim::scan_trace(shape, hot, {a.scan_every, a.scan_share});
    tier::sim::Mix mix;
    mix.offline_pages = a.offline_size ? *a.offline_size / shape.page_bytes : shape.pages;
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
    if (a.fast_bytes) from.fast_capacity_bytes = *a.fast_bytes;
    return tier::sim::machine_from_topology(topology, from);
  }
  return tier::sim::two_tier(a.fast_bytes.value_or(total / 4), a.slow_bytes.value_or(total));
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
      "  tier-sim --policy balanced --trace scan --size 16G --hot 2G --scan-every 10\n"
      "  tier-sim --trace mix --size 8G --offline-size 32G --grow-epochs 30 \\\n"
      "           --topology tests/fixtures/sysfs/2s-cxl-hmat\n\n"
      "Exit status: 0 ok, 1 the simulation failed, 2 bad arguments or an invalid trace.");
  Args a;
  const std::string policies = tier::policy::policy_names();
  app.add_option("--policy", a.policy, "Placement policy (" + policies + ")")
      ->capture_default_str();
  app.add_option("--param", a.params, "Policy parameter KEY=VALUE (repeatable)")->type_name("K=V");
  app.add_option(
         "--trace", a.trace,
         "uniform | zipf | phases | scan | mix | a trace FILE (the generator options are then "
         "ignored)")
      ->capture_default_str();
  FlagTexts flags(app);
  flags.add("--pages", "Workload size in pages (generators)", "N");
  flags.add("--size", "Workload size in bytes (default 16G)", "BYTES");
  flags.add("--page-size", "Page (region) size, a power of two (default 2M)", "BYTES");
  flags.add("--hot", "Hot set size (default size / 8)", "BYTES");
  flags.add("--hot-fraction", "Share of accesses to the hot set (default 0.9)", "0..1");
  flags.add("--theta", "Zipf exponent (default 0.99)", "X");
  flags.add("--epochs", "Epochs to generate (default 60)", "N");
  flags.add("--samples", "Sampled accesses per epoch (default 20000)", "N");
  flags.add("--fast-bytes", "Tier-0 capacity (default footprint / 4)", "BYTES");
  flags.add("--slow-bytes", "Tier-1 capacity (default the footprint)", "BYTES");
  flags.add("--seed", "Generator seed (default 1)", "N");
  flags.add("--phase-epochs", "phases: epochs per phase (default 10)", "N");
  flags.add("--phases", "phases: distinct hot-set positions, cycled (default 3)", "N");
  flags.add("--offline-size", "mix: offline job's final size (default --size)", "BYTES");
  flags.add("--online-share", "mix: share of accesses by the online workload (default 0.5)",
            "0..1");
  flags.add("--grow-epochs", "mix: epochs until the offline job is full size (default 30)", "N");
  flags.add("--scan-every", "scan: a full pass every N epochs (default 10)", "N");
  flags.add("--scan-share",
            "scan: share of a scan epoch's accesses that are the pass (default 0.5)", "0..1");
  flags.add("--budget-mbps", "Global migration budget, MB/s (default 0 = none)", "MBPS");
  flags.add("--epoch-s", "Seconds per epoch (default 1)", "S");
  flags.add("--ping-pong-window",
            "A move back to a node left within this many epochs is ping-pong (default 10)", "N");
  flags.add("--topology", "Model the machine of this sysfs root", "DIR");
  flags.add("--cpu-node", "Node the workloads run on (default 0)", "NODE");
  flags.add("--write-trace", "Also save the trace to FILE", "FILE");
  flags.add("--plans",
            "Also write every epoch's planned moves to FILE, one line each "
            "(epoch, pid, start, end, target node, workload, reason)",
            "FILE");
  flags.add("--every", "Print every K-th epoch row (default 1)", "K");
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
    read_flags(flags, a);
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
    const tier::sim::Trace trace = make_trace(a);
    if (!a.write_trace.empty()) tier::sim::write_trace(std::filesystem::path(a.write_trace), trace);
    const tier::sim::Machine machine = make_machine(a, trace);
    tier::sim::SimOptions options;
    options.cpu_node = cpu_node(a, machine);
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
      std::cout << tier::json_text(doc) << "\n";
    } else {
      std::cout << "policy " << a.policy << "; trace " << trace.description << "\n"
                << "machine:";
      for (const auto& n : machine.nodes) {
        std::cout << " node" << n.id << " tier " << n.tier << " " << (n.capacity_bytes >> 20)
                  << " MiB " << machine.latency(options.cpu_node, n.id) << " ns;";
      }
      std::cout << " workloads on node " << options.cpu_node << "\n\n";
      tier::sim::print_epochs(std::cout, result.epochs, a.every);
      std::cout << "\n";
      tier::sim::print_summary(std::cout, result.summary);
    }
    return 0;
  } catch (const UsageError& e) {
    std::cerr << "tier-sim: " << e.what() << "\n\n" << app.help();
    return kUsage;
  } catch (const values::ValueError& e) {
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
