// `tierctl heat`: which pages of a process are hot, which node they are on,
// and how much of its access goes to remote nodes (docs/heat.md).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <boost/json.hpp>

#include "command.hpp"
#include "error_output.hpp"
#include "heat_recorder.hpp"
#include "interrupt.hpp"
#include "process_args.hpp"
#include "tier/heat/collector.hpp"
#include "tier/heat/empty_reason.hpp"
#include "tier/heat/report_json.hpp"
#include "tier/heat/selection.hpp"
#include "tier/json/json_text.hpp"
#include "usage.hpp"
#include "value_options.hpp"

namespace tierctl {

namespace {

struct HeatOptions {
  Value<pid_t> pid;
  Value<std::string> source;
  Value<double> duration;
  Value<std::chrono::milliseconds> interval;
  Value<std::uint64_t> sample_every, top;
  Value<double> decay;
  bool json = false;
  bool list_sources = false;
  Value<std::filesystem::path> record;  // --record FILE: also write a simulator trace
};

constexpr double kMaxDurationSeconds = 86400;  // a day of sampling
constexpr std::uint64_t kMaxSampleEvery = 1'000'000;
constexpr std::uint64_t kMaxTop = 1'000'000'000;

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
  if (const std::string why = tier::heat::empty_reason(r); !why.empty()) {
    std::printf("no samples: %s\n", why.c_str());
  }
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
  using namespace std::chrono_literals;
  tier::SysRoot root = global.root.empty() ? tier::SysRoot("/") : tier::SysRoot(global.root);
  if (options.record.given() && options.list_sources) {
    throw UsageError("--record records a --pid run; it does not go with --list-sources");
  }
  // Every value is checked, also those --list-sources does not use.
  const std::optional<pid_t> pid = options.pid.get();
  const std::string source = options.source.get_or("auto");
  const std::optional<std::filesystem::path> record = options.record.get();
  tier::heat::CollectOptions collect;
  collect.duration = std::chrono::milliseconds(std::llround(options.duration.get_or(10) * 1000));
  collect.interval = options.interval.get_or(1000ms);
  collect.source.sample_every = static_cast<std::uint32_t>(options.sample_every.get_or(1));
  collect.source.interval = collect.interval;
  collect.decay = options.decay.get_or(0.9);
  collect.top = static_cast<std::size_t>(options.top.get_or(0));
  const auto probes = tier::heat::probe_sources(root);
  if (options.list_sources) {
    if (options.json) {
      std::cout << tier::json_text(
                       boost::json::object{{"sources", tier::heat::heat_sources_json(probes)}})
                << "\n";
    } else {
      tier::heat::print_heat_sources(std::cout, probes);
    }
    return kOk;
  }
  if (!pid) {
    throw UsageError(!record ? "--pid is required (or --list-sources)"
                             : "--record needs --pid (the process to record)");
  }
  std::vector<std::string> chosen;
  try {
    chosen = tier::heat::choose_sources(source, probes);
  } catch (const tier::heat::UnknownSourceError& e) {
    throw UsageError(e.what());
  } catch (const tier::heat::SourceError& e) {
    throw Failure(e.what());
  }
  require_user_process(root, *pid, "to watch");
  tier::Topology topo = tier::load_topology(topology_options(global));

  collect.cancel = &cancel_on_interrupt();

  // Created before collection starts, so a path that cannot be written fails
  // at once; its mappings are the ones collect_heat() tracks.
  std::unique_ptr<TraceRecorder> recorder;
  const bool automatic = source == "auto";
  if (record) {
    RecordHeader header;
    header.pid = *pid;
    if (automatic) {
      header.source = "auto";  // the trace's trailing note names the one that ran
    } else {
      for (const auto& name : chosen) header.source += (header.source.empty() ? "" : ",") + name;
    }
    header.command = process_command_line(root, *pid);
    header.date = utc_now();
    header.interval = collect.interval;
    header.mappings = recordable_ranges(root, *pid);
    try {
      recorder = std::make_unique<TraceRecorder>(record->string(), header);
    } catch (const RecordError& e) {
      throw Failure(e.what());
    }
    collect.on_epoch = [&recorder](const std::vector<tier::heat::AccessSample>& samples,
                                   std::uint64_t epoch) { recorder->add(samples, epoch); };
  }

  std::vector<tier::heat::Fallback> fallbacks;
  tier::heat::HeatReport report;
  try {
    report = tier::heat::collect_heat_with_fallback(root, topo, tier::real_memory_syscalls(), *pid,
                                                    chosen, automatic, probes, collect, fallbacks);
  } catch (const tier::heat::SourceError& e) {
    if (recorder) recorder->discard();
    if (!automatic) {
      throw Failure("heat source " + fallbacks.front().source + " failed to start: " + e.what());
    }
    std::string reasons;
    for (const auto& f : fallbacks) reasons += "\n  " + f.source + ": " + f.error;
    throw Failure("no heat source could start:" + reasons);
  }
  std::optional<RecordSummary> recorded;
  if (recorder) recorded = recorder->finish(report.epochs, record_note(report));
  if (options.json) {
    auto doc = tier::heat::report_json(report, probes, fallbacks);
    if (recorded) doc["record"] = record_json(*recorded);
    if (recorded && !recorded->error.empty()) add_error(doc, "failed", recorded->error);
    std::cout << tier::json_text(doc) << "\n";
  } else {
    for (const auto& f : fallbacks) {
      std::cout << "source " << f.source << " did not start: " << f.error << "\n";
    }
    print_report(report, collect.top);
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
  using namespace std::chrono_literals;
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
  set_usage(*cmd, "tierctl heat --pid PID [OPTIONS] | tierctl heat --list-sources [--json]");
  add_pid_option(*cmd, "--pid", options->pid, "Process to watch");
  add_text_option(*cmd, "--source", options->source, "SOURCE",
                  "auto, a source name, or NAME,NAME2 to cross-check a second source "
                  "(pmu, bpf-fault, damon, soft-dirty, idle-page, perf-fault)")
      ->default_str("auto");
  add_seconds_option(*cmd, "--duration", options->duration, kMaxDurationSeconds, "S",
                     "Seconds to sample, above 0 and at most 86400")
      ->default_str("10");
  add_duration_option(*cmd, "--interval", options->interval, 10ms, 1h, 1ms, "MS",
                      "Epoch length, 10 ms to 1 h (bare digits are ms; 2s, 1m also): poll, "
                      "decay and DAMON aggregation interval")
      ->default_str("1000");
  add_count_option(*cmd, "--sample-every", options->sample_every, 1, kMaxSampleEvery,
                   "Keep 1 in N events (fault sources), 1 to 1000000")
      ->default_str("1");
  add_count_option(*cmd, "--top", options->top, 0, kMaxTop,
                   "Report only the K hottest ranges (0: every scored range)")
      ->type_name("K")
      ->default_str("0");
  add_decimal_option(*cmd, "--decay", options->decay, 0, 1, true, "F",
                     "Heat kept per epoch, above 0 and up to 1")
      ->default_str("0.9");
  cmd->add_flag("--json", options->json, "Print one JSON document (docs/cli.md)");
  add_output_file_option(*cmd, "--record", options->record, "FILE",
                         "Also write the samples as a simulator trace (one epoch per --interval) "
                         "that\ntier-sim --trace FILE replays (docs/simulator.md)");
  cmd->add_flag("--list-sources", options->list_sources,
                "List the heat sources, in auto order, with why each is (not) available");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_heat(global, *options); };
  });
}

}  // namespace tierctl
