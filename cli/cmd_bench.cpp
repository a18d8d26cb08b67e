// `tierctl bench`: idle latency, read/write/copy bandwidth and loaded latency
// for every initiator x target node pair, next to the HMAT figures.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include <boost/json.hpp>

#include "command.hpp"
#include "error_output.hpp"
#include "tier/bench/bench.hpp"
#include "tier/json/json_text.hpp"
#include "usage.hpp"
#include "value_options.hpp"

namespace tierctl {

namespace {

struct BenchOptions {
  IdListValue initiators, targets;
  Value<std::uint64_t> threads, size, repeat;
  bool loaded = false;
  bool json = false;
  Value<std::filesystem::path> plot;
};

/// Buffers beyond 1 TiB exceed any node's memory tierctl will meet.
constexpr std::uint64_t kMaxSizeBytes = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxBenchThreads = 1024;
constexpr std::uint64_t kMaxRepeat = 1000;

std::vector<unsigned> ids_or_none(const std::optional<tier::CpuList>& list) {
  return list ? list->ids() : std::vector<unsigned>{};
}

int run_bench(const GlobalOptions& global, const BenchOptions& options) {
  tier::bench::BenchConfig config;
  config.size = options.size.get();
  if (auto threads = options.threads.get()) config.threads = static_cast<int>(*threads);
  config.repeat = static_cast<int>(options.repeat.get_or(5));
  config.loaded = options.loaded;
  const std::optional<std::filesystem::path> plot = options.plot.get();
  tier::Topology topology = tier::load_topology(topology_options(global));
  const tier::CpuList nodes = node_ids(topology);
  config.initiators = ids_or_none(options.initiators.get(nodes));
  config.targets = ids_or_none(options.targets.get(nodes));
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
  // On stderr in both modes: a --json reader finds them in "warnings".
  for (const std::string& warning : report.warnings) {
    std::cerr << "tierctl: warning: " << warning << "\n";
  }
  // The plot first, so that with --json its failure is in the one document.
  std::string plot_error;
  if (plot) {
    try {
      tier::bench::write_plot(report, plot->string());
    } catch (const tier::bench::PlotError& e) {
      plot_error = e.what();
    }
  }
  if (options.json) {
    boost::json::value doc = tier::bench::to_json(report, topology);
    if (!plot_error.empty() && doc.is_object()) add_error(doc.as_object(), "failed", plot_error);
    std::cout << tier::json_text(doc) << "\n";
  } else {
    std::cout << tier::bench::render_text(report, topology);
    if (plot && plot_error.empty()) std::cout << "Heat maps written to " << plot->string() << "\n";
  }
  if (!plot_error.empty()) {
    std::cerr << "tierctl: " << plot_error << "\n";
    return kFailure;
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
  set_usage(*cmd,
            "tierctl bench [--initiator NODES]... [--target NODES]... [--threads N] "
            "[--size BYTES] [--repeat N] [--loaded] [--json] [--plot FILE.png]");
  add_node_list_option(*cmd, "--initiator", options->initiators,
                       "CPU node(s) to run on (repeatable or a list); default: every node with "
                       "CPUs");
  add_node_list_option(*cmd, "--target", options->targets,
                       "Memory node(s) to measure (repeatable or a list); default: every node "
                       "with memory, CPU-less ones included");
  add_count_option(*cmd, "--threads", options->threads, 1, kMaxBenchThreads,
                   "Bandwidth threads, 1 to 1024 (loaded mode: 1 chaser + N-1 loaders); "
                   "default: every CPU of the initiator");
  add_size_option(*cmd, "--size", options->size, tier::bench::kMinSizeBytes, kMaxSizeBytes,
                  "Buffer bytes, 1M to 1T, K/M/G/T suffixes (binary); default: max(256M, 8 x "
                  "LLC), at most a quarter of the target's free memory");
  add_count_option(*cmd, "--repeat", options->repeat, 1, kMaxRepeat,
                   "Rounds over the targets, 1 to 1000 (each measures every target once, from a "
                   "different first target); a figure is the median of its rounds")
      ->default_str("5");
  cmd->add_flag("--loaded", options->loaded, "Also measure loaded latency (bandwidth, latency)");
  cmd->add_flag("--json", options->json, "Print one JSON document (docs/bench.md)");
  add_output_file_option(*cmd, "--plot", options->plot, "FILE.png",
                         "Write latency/bandwidth heat maps (needs gnuplot)");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_bench(global, *options); };
  });
}

}  // namespace tierctl
