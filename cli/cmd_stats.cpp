// `tierctl stats`: per-node and per-tier memory use and tiering rates, or the
// per-node residency of processes (like `numastat -p`).
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <regex>
#include <thread>

#include <boost/json.hpp>

#include "command.hpp"
#include "preload_stats.hpp"
#include "tier/json/json_text.hpp"
#include "tier/memory/node_usage.hpp"
#include "tier/memory/residency.hpp"
#include "usage.hpp"
#include "value_options.hpp"

namespace tierctl {

namespace {

/// The flags as typed (value_options.hpp).
struct StatsFlags {
  Value<pid_t> pid;
  Value<std::string> name, cgroup;
  Value<double> interval, watch;
  bool json = false;
};

/// The flags, converted.
struct StatsOptions {
  std::optional<int> pid;
  std::string name;
  std::string cgroup;
  double interval = 1.0;
  std::optional<double> watch;
  bool json = false;
};

/// The longest --interval or --watch period: an hour between two samples.
constexpr double kMaxPeriodSeconds = 3600;

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
}

/// Sleeps up to `seconds`, waking early on SIGINT; false when interrupted.
bool interruptible_sleep(double seconds) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(seconds));
  while (!g_interrupted.load()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::chrono::steady_clock::duration step = std::chrono::milliseconds(50);
    std::this_thread::sleep_for(std::min(step, until - now));
  }
  return false;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string mib(std::uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buffer;
}

std::string fixed(double value, int digits = 1) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

tier::SysRoot sysroot(const GlobalOptions& global) {
  return global.root.empty() ? tier::SysRoot("/") : tier::SysRoot(global.root);
}

// ---- processes -----------------------------------------------------------

std::vector<int> pids_matching(const tier::SysRoot& root, const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::extended);
  } catch (const std::regex_error& e) {
    throw UsageError("--name '" + pattern + "': bad regular expression: " + e.what());
  }
  std::vector<int> out;
  for (const auto& entry : root.list("/proc")) {
    if (entry.empty() || entry.find_first_not_of("0123456789") != std::string::npos) continue;
    int pid = std::stoi(entry);
    auto comm = root.read("/proc/" + entry + "/comm");
    if (comm && std::regex_search(*comm, re)) out.push_back(pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

boost::json::object process_json(const tier::ResidencyReport& report, const tier::Topology& topo) {
  boost::json::object doc;
  doc["pid"] = report.pid;
  boost::json::array nodes;
  for (const auto& [node, residency] : report.nodes) {
    boost::json::object entry;
    entry["node"] = node;
    entry["bytes"] = residency.bytes;
    entry["pages_4k"] = residency.pages_4k;
    entry["huge_bytes"] = residency.huge_bytes;
    const tier::Node* info = topo.node(node);
    if (info != nullptr) entry["tier"] = info->tier;
    nodes.push_back(std::move(entry));
  }
  doc["nodes"] = std::move(nodes);
  std::vector<std::string> warnings = report.warnings;
  boost::json::array tiers;
  for (const auto& [tier_rank, bytes] : tier::bytes_per_tier(report.nodes, topo, &warnings)) {
    tiers.push_back(boost::json::object{{"tier", tier_rank}, {"bytes", bytes}});
  }
  doc["tiers"] = std::move(tiers);
  doc["resident_bytes"] = report.resident_bytes();
  doc["mappings"] = report.mappings.size();
  boost::json::array warning_list;
  for (const auto& warning : warnings) warning_list.emplace_back(warning);
  doc["warnings"] = std::move(warning_list);
  return doc;
}

void print_process(std::ostream& out, const tier::ResidencyReport& report,
                   const tier::Topology& topo, const std::string& comm) {
  out << "Per-node process memory usage (in MiB) for PID " << report.pid;
  if (!comm.empty()) out << " (" << comm << ")";
  out << "\n";
  out << "  node  tier        MiB    4k-pages   huge MiB\n";
  for (const auto& [node, residency] : report.nodes) {
    const tier::Node* info = topo.node(node);
    char line[128];
    std::snprintf(line, sizeof line, "  %4u  %4s %10s %11llu %10s\n", node,
                  info != nullptr ? std::to_string(info->tier).c_str() : "?",
                  mib(residency.bytes).c_str(), static_cast<unsigned long long>(residency.pages_4k),
                  mib(residency.huge_bytes).c_str());
    out << line;
  }
  char total[128];
  std::snprintf(total, sizeof total, "  %-10s %10s\n", "total",
                mib(report.resident_bytes()).c_str());
  out << total;
  std::vector<std::string> warnings = report.warnings;
  for (const auto& [tier_rank, bytes] : tier::bytes_per_tier(report.nodes, topo, &warnings)) {
    out << "  tier " << tier_rank << ": " << mib(bytes) << " MiB\n";
  }
  for (const auto& warning : warnings) out << "  warning: " << warning << "\n";
}

int show_processes(const GlobalOptions& global, const StatsOptions& options,
                   const tier::Topology& topo) {
  tier::SysRoot root = sysroot(global);
  std::vector<int> pids;
  if (options.pid) {
    if (!root.exists("/proc/" + std::to_string(*options.pid))) {
      throw UsageError("--pid " + std::to_string(*options.pid) + ": no such process");
    }
    pids.push_back(*options.pid);
  } else {
    pids = pids_matching(root, options.name);
    if (pids.empty()) throw UsageError("--name '" + options.name + "': no process matches");
  }
  boost::json::array processes;
  for (int pid : pids) {
    tier::ResidencyReport report;
    try {
      report = tier::scan_residency(root, tier::real_memory_syscalls(), pid);
    } catch (const tier::ResidencyError& e) {
      // A pid named by --pid must be readable; one matched by --name may exit.
      if (options.pid) {
        throw Failure(e.what(), e.error == EPERM || e.error == EACCES ? "permission" : "failed");
      }
      continue;
    }
    auto comm = root.read("/proc/" + std::to_string(pid) + "/comm").value_or("");
    boost::json::object doc;
    if (options.json) {
      doc = process_json(report, topo);
      doc["comm"] = comm;
    } else {
      print_process(std::cout, report, topo, comm);
    }
    report_preload_stats(root, pid, options.json ? &doc : nullptr, std::cout);
    if (options.json) {
      if (options.pid) {
        std::cout << tier::json_text(doc) << "\n";
      } else {
        processes.push_back(std::move(doc));
      }
    }
  }
  if (options.json && !options.pid) {
    std::cout << tier::json_text(boost::json::object{{"processes", processes}}) << "\n";
  }
  std::cout.flush();
  return kOk;
}

// ---- system --------------------------------------------------------------

struct Totals {
  std::uint64_t total = 0, free = 0, used = 0, file = 0, anon = 0;
  tier::TieringRates rates;
  std::vector<unsigned> nodes;
};

void add_rates(tier::TieringRates& into, const tier::TieringRates& rates) {
  into.promote_pages_per_s += rates.promote_pages_per_s;
  into.demote_pages_per_s += rates.demote_pages_per_s;
  into.migrate_pages_per_s += rates.migrate_pages_per_s;
}

boost::json::object rates_json(const tier::TieringRates& rates) {
  return {{"promote_pages_per_s", rates.promote_pages_per_s},
          {"demote_pages_per_s", rates.demote_pages_per_s},
          {"migrate_pages_per_s", rates.migrate_pages_per_s}};
}

void show_system(const GlobalOptions& global, const StatsOptions& options,
                 const tier::Topology& topo, const tier::MemorySnapshot& before,
                 const tier::MemorySnapshot& after, double seconds) {
  auto system_rates = tier::counter_rates(before.vmstat, after.vmstat, seconds);
  tier::TieringRates system = tier::tiering_rates(system_rates);
  std::map<unsigned, Totals> tiers;
  boost::json::array nodes_json;
  std::vector<std::string> lines;
  for (const auto& node : after.nodes) {
    const tier::NodeMemory* old = before.node(node.node);
    tier::TieringRates rates;
    if (old != nullptr)
      rates = tier::tiering_rates(tier::counter_rates(old->vmstat, node.vmstat, seconds));
    const tier::Node* info = topo.node(node.node);
    unsigned rank = info != nullptr ? info->tier : 0;
    Totals& t = tiers[rank];
    t.total += node.total_bytes;
    t.free += node.free_bytes;
    t.used += node.used_bytes;
    t.file += node.file_bytes;
    t.anon += node.anon_bytes;
    add_rates(t.rates, rates);
    t.nodes.push_back(node.node);
    boost::json::object entry{{"node", node.node},
                              {"tier", rank},
                              {"total_bytes", node.total_bytes},
                              {"free_bytes", node.free_bytes},
                              {"used_bytes", node.used_bytes},
                              {"file_bytes", node.file_bytes},
                              {"anon_bytes", node.anon_bytes},
                              {"high_watermark_bytes", node.high_watermark_bytes}};
    entry["rates"] = rates_json(rates);
    nodes_json.push_back(std::move(entry));
    char line[200];
    std::snprintf(line, sizeof line, "%5u %5u %11s %11s %11s %11s %11s %9s %9s\n", node.node, rank,
                  mib(node.total_bytes).c_str(), mib(node.used_bytes).c_str(),
                  mib(node.free_bytes).c_str(), mib(node.file_bytes).c_str(),
                  mib(node.anon_bytes).c_str(), fixed(rates.promote_pages_per_s).c_str(),
                  fixed(rates.demote_pages_per_s).c_str());
    lines.push_back(line);
  }
  std::optional<tier::CgroupNumaStat> cgroup;
  if (!options.cgroup.empty()) {
    cgroup = tier::read_cgroup_numa_stat(sysroot(global), options.cgroup);
  }
  if (options.json) {
    boost::json::object doc;
    doc["interval_seconds"] = seconds;
    doc["nodes"] = std::move(nodes_json);
    boost::json::array tiers_json;
    for (const auto& [rank, t] : tiers) {
      boost::json::array ids;
      for (unsigned id : t.nodes) ids.push_back(id);
      boost::json::object entry{{"tier", rank},           {"nodes", ids},
                                {"total_bytes", t.total}, {"free_bytes", t.free},
                                {"used_bytes", t.used},   {"file_bytes", t.file},
                                {"anon_bytes", t.anon}};
      entry["rates"] = rates_json(t.rates);
      tiers_json.push_back(std::move(entry));
    }
    doc["tiers"] = std::move(tiers_json);
    boost::json::object rates = rates_json(system);
    boost::json::object counters;
    for (const auto& [key, value] : system_rates) counters[key] = value;
    rates["counters"] = std::move(counters);
    doc["rates"] = std::move(rates);
    if (!options.cgroup.empty()) {
      boost::json::object cg{{"path", options.cgroup}, {"available", cgroup.has_value()}};
      if (cgroup) {
        boost::json::object stats;
        for (const auto& [key, per_node] : *cgroup) {
          boost::json::object values;
          for (const auto& [node, bytes] : per_node) values[std::to_string(node)] = bytes;
          stats[key] = std::move(values);
        }
        cg["numa_stat"] = std::move(stats);
      }
      doc["cgroup"] = std::move(cg);
    }
    std::cout << tier::json_text(doc) << std::endl;
    return;
  }
  std::cout << "Memory per node (MiB), rates in pages/s over " << fixed(seconds, 2) << " s\n";
  std::cout << " node  tier       total        used        free        file        anon   promote  "
               "  demote\n";
  for (const auto& line : lines) std::cout << line;
  std::cout << "\nPer tier (MiB)\n tier  nodes       total        used        free   promote/s  "
               "demote/s\n";
  for (const auto& [rank, t] : tiers) {
    std::string ids;
    for (unsigned id : t.nodes) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    char line[200];
    std::snprintf(line, sizeof line, "%5u  %-6s %11s %11s %11s %11s %9s\n", rank, ids.c_str(),
                  mib(t.total).c_str(), mib(t.used).c_str(), mib(t.free).c_str(),
                  fixed(t.rates.promote_pages_per_s).c_str(),
                  fixed(t.rates.demote_pages_per_s).c_str());
    std::cout << line;
  }
  std::cout << "\nSystem: promote " << fixed(system.promote_pages_per_s) << " pages/s, demote "
            << fixed(system.demote_pages_per_s) << " pages/s, migrate "
            << fixed(system.migrate_pages_per_s) << " pages/s\n";
  if (!options.cgroup.empty()) {
    if (!cgroup) {
      std::cout << "cgroup " << options.cgroup
                << ": no memory.numa_stat (no cgroup v2 memory controller there)\n";
    } else {
      std::cout << "cgroup " << options.cgroup << " memory.numa_stat (MiB):\n";
      for (const auto& [key, per_node] : *cgroup) {
        std::cout << "  " << key;
        for (const auto& [node, bytes] : per_node) std::cout << " N" << node << "=" << mib(bytes);
        std::cout << "\n";
      }
    }
  }
  std::cout.flush();
}

int run_stats(const GlobalOptions& global, const StatsFlags& flags) {
  StatsOptions options;
  options.pid = flags.pid.get();
  options.name = flags.name.get_or("");
  options.cgroup = flags.cgroup.get_or("");
  options.interval = flags.interval.get_or(1.0);
  options.watch = flags.watch.get();
  options.json = flags.json;
  if (options.pid && flags.name.given()) throw UsageError("--pid and --name exclude each other");
  tier::Topology topo = tier::load_topology(topology_options(global));
  tier::SysRoot root = sysroot(global);
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  const bool processes = options.pid || !options.name.empty();
  if (processes) {
    while (true) {
      show_processes(global, options, topo);
      if (!options.watch || !interruptible_sleep(*options.watch)) break;
    }
    return kOk;
  }
  double period = options.watch.value_or(options.interval);
  tier::MemorySnapshot before = tier::read_memory_snapshot(root);
  double started = now_seconds();
  while (true) {
    if (!interruptible_sleep(period)) {
      // Interrupted during the first sample: still print what we have.
      if (!options.watch) {
        double t = now_seconds();
        show_system(global, options, topo, before, tier::read_memory_snapshot(root), t - started);
      }
      break;
    }
    tier::MemorySnapshot after = tier::read_memory_snapshot(root);
    double t = now_seconds();
    show_system(global, options, topo, before, after, t - started);
    if (!options.watch) break;
    before = std::move(after);
    started = t;
  }
  return kOk;
}

}  // namespace

void add_stats_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<StatsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "stats",
      "Memory used/free and promote/demote/migrate rates per node and tier, or where a "
      "process's pages are");
  cmd->footer(
      "Without --pid/--name: per node and per tier memory total/used/free, file/anon, and the\n"
      "kernel's tiering rates from two /proc/vmstat samples --interval apart.\n"
      "With --pid or --name: per-node residency of the process (like numastat -p) and per-tier\n"
      "totals, from /proc/PID/smaps and move_pages queries (docs/memory.md).\n\n"
      "Examples:\n"
      "  tierctl stats\n"
      "  tierctl stats --pid 1234 --json\n"
      "  tierctl stats --name '^postgres' --watch 5");
  set_usage(*cmd,
            "tierctl stats [--pid PID | --name REGEX] [--interval SECONDS] [--watch SECONDS] "
            "[--cgroup PATH] [--json]");
  add_pid_option(*cmd, "--pid", options->pid, "Show where the pages of this process are");
  add_text_option(*cmd, "--name", options->name, "REGEX",
                  "Like --pid for every process whose /proc/PID/comm matches this regex");
  add_seconds_option(*cmd, "--interval", options->interval, kMaxPeriodSeconds, "SECONDS",
                     "Seconds between the two counter samples the rates come from (above 0, at "
                     "most 3600)")
      ->default_str("1");
  add_seconds_option(*cmd, "--watch", options->watch, kMaxPeriodSeconds, "SECONDS",
                     "Refresh every SECONDS (above 0, at most 3600) until interrupted (Ctrl-C)");
  add_text_option(*cmd, "--cgroup", options->cgroup, "PATH",
                  "Also show memory.numa_stat of this cgroup v2 path (e.g. /system.slice)");
  cmd->add_flag("--json", options->json, "Print JSON (one document per refresh; docs/cli.md)");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_stats(global, *options); };
  });
}

}  // namespace tierctl
