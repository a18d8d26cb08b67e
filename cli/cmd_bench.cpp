// `tierctl bench`: idle latency, read/write/copy bandwidth and loaded latency
// for every initiator x target node pair, next to the HMAT figures.
#include <unistd.h>

#include <iostream>
#include <memory>

#include <boost/json.hpp>

#include "command.hpp"
#include "tier/bench/bench.hpp"

namespace tierctl {

namespace {

struct BenchOptions {
  std::vector<unsigned> initiators;
  std::vector<unsigned> targets;
  int threads = 0;
  bool threads_given = false;
  std::string size;
  int repeat = 5;
  bool loaded = false;
  bool json = false;
  std::string plot;
};

int run_bench(const GlobalOptions& global, const BenchOptions& options) {
  tier::Topology topology = tier::load_topology(topology_options(global));
  tier::bench::BenchConfig config;
  config.initiators = options.initiators;
  config.targets = options.targets;
  config.repeat = options.repeat;
  config.loaded = options.loaded;
  if (options.threads_given) config.threads = options.threads;
  if (!options.size.empty()) {
    config.size = tier::bench::parse_size(options.size);
    if (!config.size) {
      throw UsageError("--size '" + options.size +
                       "': expected a byte count with an optional K/M/G/T suffix, e.g. 256M");
    }
  }
  try {
    config = tier::bench::resolve_config(topology, config);
  } catch (const tier::bench::BenchConfigError& e) {
    throw UsageError(e.what());
  }
  std::function<void(const std::string&)> progress;
  if (isatty(STDERR_FILENO) != 0) {
    progress = [](const std::string& line) { std::cerr << "tierctl bench: " << line << "\n"; };
  }
  tier::bench::BenchReport report = tier::bench::run_bench(topology, config, progress);
  if (options.json) {
    std::cout << boost::json::serialize(tier::bench::to_json(report, topology)) << "\n";
  } else {
    std::cout << tier::bench::render_text(report, topology);
  }
  if (!options.plot.empty()) {
    try {
      tier::bench::write_plot(report, options.plot);
    } catch (const tier::bench::PlotError& e) {
      std::cerr << "tierctl: " << e.what() << "\n";
      return kFailure;
    }
    if (!options.json) std::cout << "Heat maps written to " << options.plot << "\n";
  }
  return kOk;
}

}  // namespace

void add_bench_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Measure latency and bandwidth for every CPU node x memory node pair");
  cmd->footer(
      "Idle latency: a dependent pointer chase over a random single cycle of cache lines in a\n"
      "buffer much larger than the LLC, bound to the target node (mbind before first touch,\n"
      "THP when available), timed on the initiator's CPUs; median ns per load.\n"
      "Bandwidth: read, write and copy (memcpy, like mbw -t0) by --threads threads on the\n"
      "initiator's CPUs; MB/s = 10^6 bytes/s, copy counts the bytes copied once.\n"
      "--loaded adds MLC-style loaded latency: latency while the other threads read the\n"
      "target with decreasing injection delays. HMAT figures appear in [brackets].\n"
      "Measures this machine only (--root/--hwloc-xml change the node list, not the memory).\n"
      "See docs/bench.md.\n\n"
      "Examples:\n"
      "  tierctl bench\n"
      "  tierctl bench --initiator 0 --target 0,2 --size 1G --threads 4\n"
      "  tierctl bench --loaded --json | jq '.loaded[0].points'\n"
      "  tierctl bench --plot bench.png");
  cmd->add_option("--initiator", options->initiators,
                  "CPU node(s) to run on (repeatable or a list); default: every node with CPUs")
      ->delimiter(',')
      ->type_name("N");
  cmd->add_option("--target", options->targets,
                  "Memory node(s) to measure (repeatable or a list); default: every node with "
                  "memory, CPU-less ones included")
      ->delimiter(',')
      ->type_name("N");
  CLI::Option* threads =
      cmd->add_option("--threads", options->threads,
                      "Bandwidth threads (loaded mode: 1 chaser + N-1 loaders); default: every "
                      "CPU of the initiator")
          ->type_name("N");
  cmd->add_option("--size", options->size,
                  "Buffer bytes, K/M/G suffixes (binary); default: max(256M, 8 x LLC), at most a "
                  "quarter of the target's free memory")
      ->type_name("BYTES");
  cmd->add_option("--repeat", options->repeat, "Passes per figure; the median is reported")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_flag("--loaded", options->loaded, "Also measure loaded latency (bandwidth, latency)");
  cmd->add_flag("--json", options->json, "Print one JSON document (docs/bench.md)");
  cmd->add_option("--plot", options->plot, "Write latency/bandwidth heat maps (needs gnuplot)")
      ->type_name("FILE.png");
  cmd->callback([&global, &action, options, threads] {
    options->threads_given = threads->count() > 0;
    action = [&global, options] { return run_bench(global, *options); };
  });
}

}  // namespace tierctl
