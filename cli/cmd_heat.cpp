// `tierctl heat`: which pages of a process are hot, which node they are on,
// and how much of its access goes to remote nodes (docs/heat.md).
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include <boost/json.hpp>

#include "command.hpp"
#include "heat_recorder.hpp"
#include "process_args.hpp"
#include "tier/heat/collector.hpp"
#include "tier/heat/report_json.hpp"
#include "tier/heat/selection.hpp"

namespace tierctl {

namespace {

struct HeatOptions {
  int pid = 0;
  std::string source = "auto";
  double duration = 10;
  int interval_ms = 1000;
  std::uint32_t sample_every = 1;
  std::size_t top = 0;
  double decay = 0.9;
  bool json = false;
  bool list_sources = false;
  std::string record;  // --record FILE: also write a simulator trace
};

std::atomic<bool> g_cancel{false};
extern "C" void on_heat_signal(int) {
  g_cancel.store(true);
}

void print_kernel_activity(const tier::heat::KernelActivity& k) {
  if (!k.run_time_error.empty()) {
    std::printf("run time per node: not watched (%s)\n", k.run_time_error.c_str());
  } else {
    std::printf("run time by CPU node:");
    if (k.run_time_ns_by_node.empty()) std::printf(" none (the process did not run)");
    for (const auto& [node, ns] : k.run_time_ns_by_node) {
      std::printf("  node%d %.0f ms", node, static_cast<double>(ns) / 1e6);
    }
    std::printf("\n");
  }
  if (!k.migrations_error.empty()) {
    std::printf("kernel migrations: not watched (%s)\n", k.migrations_error.c_str());
    return;
  }
  std::printf("kernel's own migrations during the run (all processes): %llu pages, %llu failed",
              static_cast<unsigned long long>(k.migrations_succeeded),
              static_cast<unsigned long long>(k.migrations_failed));
  for (const auto& [reason, pages] : k.migrated_by_reason) {
    std::printf("; %s %llu", reason.c_str(), static_cast<unsigned long long>(pages));
  }
  std::printf("\n");
}

std::string human_bytes(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (std::uint64_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / 1073741824.0);
  } else if (bytes >= (std::uint64_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  } else {
    std::snprintf(text, sizeof text, "%llu KiB", static_cast<unsigned long long>(bytes >> 10));
  }
  return text;
}

void print_report(const tier::heat::HeatReport& r, std::size_t top) {
  const auto& primary = r.sources.front();
  std::printf("pid %d: source %s, %.1f s, %llu samples, %llu drops, granule %s\n", r.pid,
              primary.name.c_str(), r.seconds,
              static_cast<unsigned long long>(primary.counters.samples),
              static_cast<unsigned long long>(primary.counters.drops),
              human_bytes(r.granule_bytes).c_str());
  if (!r.stopped_reason.empty()) std::printf("stopped early: %s\n", r.stopped_reason.c_str());
  const std::size_t shown =
      top > 0 ? std::min(top, r.hot.size()) : std::min<std::size_t>(20, r.hot.size());
  std::printf("\nhottest ranges (%zu of %zu):\n%-18s %-18s %10s %5s %10s\n", shown, r.hot.size(),
              "START", "END", "SIZE", "NODE", "SCORE");
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& h = r.hot[i];
    std::printf("0x%-16llx 0x%-16llx %10s %5s %10.2f\n", static_cast<unsigned long long>(h.start),
                static_cast<unsigned long long>(h.end), human_bytes(h.end - h.start).c_str(),
                h.node >= 0 ? std::to_string(h.node).c_str() : "-", h.score);
  }
  std::printf("\nheat per memory node:");
  if (r.per_node.empty()) std::printf(" none resolved");
  for (const auto& n : r.per_node) std::printf("  node%d %.1f", n.node, n.score);
  std::printf("\nlocal/remote accesses: %.2f / %.2f (%llu samples without a CPU or memory node)\n",
              r.cross_numa.local_share(), r.cross_numa.remote_share(),
              static_cast<unsigned long long>(r.cross_numa.unresolved()));
  for (std::size_t i = 1; i < r.sources.size(); ++i) {
    const auto& run = r.sources[i];
    if (!run.error.empty()) {
      std::printf("cross-check %s did not start: %s\n", run.name.c_str(), run.error.c_str());
    }
  }
  if (r.kernel) print_kernel_activity(*r.kernel);
  if (r.agreement) {
    const auto& a = *r.agreement;
    std::printf(
        "agreement %s vs %s (2 MiB blocks): jaccard %.2f, %.0f%% of %s's blocks in %s's, "
        "%.0f%% of %s's in %s's\n",
        a.primary.c_str(), a.other.c_str(), a.jaccard, 100 * a.primary_covered, a.primary.c_str(),
        a.other.c_str(), 100 * a.other_covered, a.other.c_str(), a.primary.c_str());
  }
}

boost::json::object record_json(const RecordSummary& r) {
  boost::json::object out{{"file", r.file},
                          {"epochs", r.epochs},
                          {"samples", r.samples},
                          {"lines", r.lines},
                          {"outside_mappings", r.outside_mappings}};
  if (!r.error.empty()) out["error"] = r.error;  // the trace is incomplete
  return out;
}

// The trace's note: which source ran and why the run ended early, if it did.
std::string record_note(const tier::heat::HeatReport& report) {
  std::string note = "source " + report.sources.front().name + " ran " +
                     std::to_string(report.epochs) + " full epochs";
  if (!report.stopped_reason.empty()) note += "; stopped early: " + report.stopped_reason;
  return note;
}

int run_heat(const GlobalOptions& global, const HeatOptions& options) {
  tier::SysRoot root = global.root.empty() ? tier::SysRoot("/") : tier::SysRoot(global.root);
  if (!options.record.empty() && options.list_sources) {
    throw UsageError("--record records a --pid run; it does not go with --list-sources");
  }
  const auto probes = tier::heat::probe_sources(root);
  if (options.list_sources) {
    if (options.json) {
      std::cout << boost::json::serialize(
                       boost::json::object{{"sources", tier::heat::heat_sources_json(probes)}})
                << "\n";
    } else {
      tier::heat::print_heat_sources(std::cout, probes);
    }
    return kOk;
  }
  if (options.pid == 0) {
    throw UsageError(options.record.empty() ? "heat: --pid is required (or --list-sources)"
                                            : "heat: --record needs --pid (the process to record)");
  }
  if (!(options.duration > 0)) throw UsageError("--duration must be > 0 seconds");
  if (options.interval_ms < 10) throw UsageError("--interval must be >= 10 ms");
  if (options.sample_every < 1) throw UsageError("--sample-every must be >= 1");
  if (!(options.decay > 0 && options.decay <= 1)) throw UsageError("--decay must be in (0, 1]");
  std::vector<std::string> chosen;
  try {
    chosen = tier::heat::choose_sources(options.source, probes);
  } catch (const tier::heat::UnknownSourceError& e) {
    throw UsageError(e.what());
  } catch (const tier::heat::SourceError& e) {
    std::cerr << "tierctl: " << e.what() << "\n";
    return kFailure;
  }
  require_user_process(root, options.pid, "to watch");
  tier::Topology topo = tier::load_topology(topology_options(global));

  tier::heat::CollectOptions collect;
  collect.duration = std::chrono::milliseconds(std::llround(options.duration * 1000));
  collect.interval = std::chrono::milliseconds(options.interval_ms);
  collect.source.sample_every = options.sample_every;
  collect.source.interval = collect.interval;
  collect.decay = options.decay;
  collect.top = options.top;
  collect.cancel = &g_cancel;
  g_cancel.store(false);
  struct sigaction action {};
  action.sa_handler = on_heat_signal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  // Created before collection starts, so a path that cannot be written fails
  // at once; its mappings are the ones collect_heat() tracks.
  std::unique_ptr<TraceRecorder> recorder;
  if (!options.record.empty()) {
    RecordHeader header;
    header.pid = options.pid;
    if (options.source.empty() || options.source == "auto") {
      header.source = "auto";  // the trace's trailing note names the one that ran
    } else {
      for (const auto& name : chosen) header.source += (header.source.empty() ? "" : ",") + name;
    }
    header.command = process_command_line(root, options.pid);
    header.date = utc_now();
    header.interval = collect.interval;
    header.mappings = recordable_ranges(root, options.pid);
    try {
      recorder = std::make_unique<TraceRecorder>(options.record, header);
    } catch (const RecordError& e) {
      std::cerr << "tierctl: " << e.what() << "\n";
      return kFailure;
    }
    collect.on_epoch = [&recorder](const std::vector<tier::heat::AccessSample>& samples,
                                   std::uint64_t epoch) { recorder->add(samples, epoch); };
  }

  const bool automatic = options.source.empty() || options.source == "auto";
  std::vector<tier::heat::Fallback> fallbacks;
  tier::heat::HeatReport report;
  try {
    report = tier::heat::collect_heat_with_fallback(root, topo, tier::real_memory_syscalls(),
                                                    options.pid, chosen, automatic, probes, collect,
                                                    fallbacks);
  } catch (const tier::heat::SourceError& e) {
    if (recorder) recorder->discard();
    if (!automatic) {
      std::cerr << "tierctl: heat source " << fallbacks.front().source
                << " failed to start: " << e.what() << "\n";
      return kFailure;
    }
    std::cerr << "tierctl: no heat source could start:";
    for (const auto& f : fallbacks) std::cerr << "\n  " << f.source << ": " << f.error;
    std::cerr << "\n";
    return kFailure;
  }
  std::optional<RecordSummary> recorded;
  if (recorder) recorded = recorder->finish(report.epochs, record_note(report));
  if (options.json) {
    auto doc = tier::heat::report_json(report, probes, fallbacks);
    if (recorded) doc["record"] = record_json(*recorded);
    std::cout << boost::json::serialize(doc) << "\n";
  } else {
    for (const auto& f : fallbacks) {
      std::cout << "source " << f.source << " did not start: " << f.error << "\n";
    }
    print_report(report, options.top);
    if (recorded && recorded->error.empty()) {
      std::printf(
          "\nrecorded %s: %llu epochs, %llu samples in %llu lines, %llu samples outside the "
          "declared mappings left out\n",
          recorded->file.c_str(), static_cast<unsigned long long>(recorded->epochs),
          static_cast<unsigned long long>(recorded->samples),
          static_cast<unsigned long long>(recorded->lines),
          static_cast<unsigned long long>(recorded->outside_mappings));
    }
  }
  if (recorded && !recorded->error.empty()) {
    std::cerr << "tierctl: " << recorded->error << "\n";
    return kFailure;
  }
  return kOk;
}

}  // namespace

void add_heat_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<HeatOptions>();
  CLI::App* cmd = app.add_subcommand(
      "heat",
      "Find the hot and cold pages of a process: samples its accesses for --duration with the\n"
      "best heat source this kernel has (PMU, eBPF NUMA hint faults, DAMON, soft-dirty,\n"
      "idle-page, perf software faults), then prints the hottest ranges with their NUMA node,\n"
      "heat per node and the local/remote access shares. Works without tierd; needs root for\n"
      "most sources. Examples:\n"
      "  tierctl heat --pid 1234 --duration 20\n"
      "  tierctl heat --pid 1234 --source bpf-fault,damon --json   (cross-check two sources)\n"
      "  tierctl heat --pid 1234 --record app.trace   (then: tier-sim --trace app.trace)\n"
      "  tierctl heat --list-sources");
  cmd->add_option("--pid", options->pid, "Process to watch")->type_name("PID");
  cmd->add_option("--source", options->source,
                  "auto, a source name, or NAME,NAME2 to cross-check a second source "
                  "(pmu, bpf-fault, damon, soft-dirty, idle-page, perf-fault)")
      ->capture_default_str();
  cmd->add_option("--duration", options->duration, "Seconds to sample")
      ->type_name("S")
      ->capture_default_str();
  cmd->add_option("--interval", options->interval_ms,
                  "Epoch length: poll, decay and DAMON aggregation interval")
      ->type_name("MS")
      ->capture_default_str();
  cmd->add_option("--sample-every", options->sample_every, "Keep 1 in N events (fault sources)")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--top", options->top, "Report only the K hottest ranges (0: every scored range)")
      ->type_name("K")
      ->capture_default_str();
  cmd->add_option("--decay", options->decay, "Heat kept per epoch, in (0, 1]")
      ->type_name("F")
      ->capture_default_str();
  cmd->add_flag("--json", options->json, "Print one JSON document (docs/cli.md)");
  cmd->add_option("--record", options->record,
                  "Also write the samples as a simulator trace (one epoch per --interval) that\n"
                  "tier-sim --trace FILE replays (docs/simulator.md)")
      ->type_name("FILE");
  cmd->add_flag("--list-sources", options->list_sources,
                "List the heat sources, in auto order, with why each is (not) available");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_heat(global, *options); };
  });
}

}  // namespace tierctl
