// `tierctl migrate`: move a process's pages to a node, rate-limited, with an
// exact account of every page (docs/memory.md).
#include <array>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "process_args.hpp"
#include "tier/memory/page_mover.hpp"
#include "tier/memory/residency.hpp"

namespace tierctl {

namespace {

struct MigrateOptions {
  int pid = 0;
  int to = -1;
  std::optional<int> from;
  std::string range;
  std::optional<double> rate;
  int threads = 1;
  bool json = false;
};

std::atomic<bool> g_cancel{false};
extern "C" void on_signal(int) {
  g_cancel.store(true);
}

std::optional<std::uint64_t> parse_address(std::string text) {
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text = text.substr(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::pair<std::uint64_t, std::uint64_t> parse_range(const std::string& text) {
  auto dash = text.find('-');
  std::optional<std::uint64_t> start, end;
  if (dash != std::string::npos) {
    start = parse_address(text.substr(0, dash));
    end = parse_address(text.substr(dash + 1));
  }
  if (!start || !end || *start >= *end) {
    throw UsageError("--range '" + text +
                     "': expected START-END with START < END, hex (0x7f0000000000) or decimal");
  }
  return {*start, *end};
}

void check_node(const tier::Topology& topo, int node, const char* flag, bool need_memory) {
  const tier::Node* info = node >= 0 ? topo.node(static_cast<unsigned>(node)) : nullptr;
  std::string nodes;
  for (const auto& n : topo.nodes()) {
    if (n.memory_total_bytes > 0) nodes += (nodes.empty() ? "" : ",") + std::to_string(n.id);
  }
  if (info == nullptr) {
    throw UsageError(std::string(flag) + " " + std::to_string(node) +
                     ": no such NUMA node (nodes with memory: " + nodes + ")");
  }
  if (need_memory && info->memory_total_bytes == 0) {
    throw UsageError(std::string(flag) + " " + std::to_string(node) +
                     ": node has no memory (nodes with memory: " + nodes + ")");
  }
}

// The failure buckets in report order, named as the JSON and text show them.
std::array<std::pair<const char*, std::uint64_t>, 7> failure_buckets(const tier::MoveCounts& p) {
  return {{{"busy", p.busy},
           {"no_memory", p.no_memory},
           {"not_present", p.not_present},
           {"process_gone", p.process_gone},
           {"permission", p.permission},
           {"other", p.other},
           {"skipped", p.skipped}}};
}

boost::json::object report_json(const MigrateOptions& options, const tier::MoveReport& report) {
  const auto& p = report.pages;
  boost::json::object failed;
  for (const auto& [name, count] : failure_buckets(p)) failed[name] = count;
  return {{"pid", options.pid},
          {"to", options.to},
          {"requested_pages", report.requested_pages},
          {"requested_bytes", report.requested_bytes},
          {"moved_pages", p.moved},
          {"bytes_moved", report.bytes.moved},
          {"already_there", p.already_there},
          {"failed", std::move(failed)},
          {"seconds", report.seconds},
          {"mbps", report.mbps},
          {"stop_reason", tier::to_string(report.stop_reason)},
          {"stop_detail", report.stop_detail}};
}

void print_report(const MigrateOptions& options, const tier::MoveReport& report) {
  const auto& p = report.pages;
  char line[256];
  std::snprintf(line, sizeof line,
                "pid %d -> node %d: requested %llu pages (%.2f MiB), moved %llu (%.2f MiB), "
                "already there %llu\n",
                options.pid, options.to, static_cast<unsigned long long>(report.requested_pages),
                static_cast<double>(report.requested_bytes) / 1048576.0,
                static_cast<unsigned long long>(p.moved),
                static_cast<double>(report.bytes.moved) / 1048576.0,
                static_cast<unsigned long long>(p.already_there));
  std::cout << line;
  const auto failures = failure_buckets(p);
  std::string failed;
  for (const auto& [name, count] : failures) {
    if (count != 0)
      failed += std::string(failed.empty() ? "" : ", ") + name + " " + std::to_string(count);
  }
  std::cout << "not moved: " << (failed.empty() ? "none" : failed) << "\n";
  std::snprintf(line, sizeof line, "%.3f s, %.1f MB/s, stop: %s%s%s\n", report.seconds, report.mbps,
                tier::to_string(report.stop_reason), report.stop_detail.empty() ? "" : " - ",
                report.stop_detail.c_str());
  std::cout << line;
}

int run_migrate(const GlobalOptions& global, const MigrateOptions& options) {
  tier::SysRoot root = global.root.empty() ? tier::SysRoot("/") : tier::SysRoot(global.root);
  if (options.threads < 1) throw UsageError("--threads must be at least 1");
  if (options.rate && !(*options.rate > 0)) {
    throw UsageError("--rate must be > 0 MB/s (omit it for no limit)");
  }
  std::optional<std::pair<std::uint64_t, std::uint64_t>> range;
  if (!options.range.empty()) range = parse_range(options.range);
  require_user_process(root, options.pid, "to migrate");
  tier::Topology topo = tier::load_topology(topology_options(global));
  check_node(topo, options.to, "--to", true);
  if (options.from) check_node(topo, *options.from, "--from", false);

  tier::ResidencyOptions scan;
  scan.range = range;
  scan.keep_pages = true;
  tier::ResidencyReport residency;
  try {
    residency = tier::scan_residency(root, tier::real_memory_syscalls(), options.pid, scan);
  } catch (const tier::ResidencyError& e) {
    if (e.error == ESRCH)
      throw UsageError("--pid " + std::to_string(options.pid) + ": " + e.what());
    if (e.error == EPERM || e.error == EACCES) {
      std::cerr << "tierctl: permission denied reading the pages of pid " << options.pid
                << " (moving another user's pages needs CAP_SYS_NICE): nothing was moved\n";
      return kFailure;
    }
    throw std::runtime_error(e.what());
  }
  // Pages migrate cannot see (a sparse mapping over 64 GiB on a kernel without
  // PAGEMAP_SCAN, summarised from numa_maps) are named, so "moved everything"
  // is never claimed for them.
  for (const auto& warning : residency.warnings)
    std::cerr << "tierctl: warning: " << warning << "\n";
  std::vector<tier::PageUnit> units;
  units.reserve(residency.pages.size());
  for (const auto& page : residency.pages) {
    if (options.from && page.node != static_cast<unsigned>(*options.from)) continue;
    units.push_back(tier::PageUnit{page.address, page.size, page.node});
  }

  g_cancel.store(false);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  tier::MoveOptions move;
  move.rate_mbps = options.rate;
  move.threads = static_cast<std::size_t>(options.threads);
  move.cancel = &g_cancel;
  tier::watch_node_free_memory(move, root, static_cast<unsigned>(options.to));
  tier::PageMover mover(tier::real_memory_syscalls());
  tier::MoveReport report = mover.move(options.pid, units, static_cast<unsigned>(options.to), move);

  if (options.json) {
    std::cout << boost::json::serialize(report_json(options, report)) << std::endl;
  } else {
    print_report(options, report);
  }
  switch (report.stop_reason) {
    case tier::StopReason::completed:
      return kOk;
    case tier::StopReason::permission:
      std::cerr << "tierctl: permission denied moving pages of pid " << options.pid
                << " (another user's process needs CAP_SYS_NICE): moved " << report.pages.moved
                << " of " << report.requested_pages << " pages, " << report.pages.already_there
                << " already on node " << options.to << ", " << report.pages.permission
                << " not moved\n";
      return kFailure;
    default:
      std::cerr << "tierctl: migration stopped early (" << tier::to_string(report.stop_reason)
                << (report.stop_detail.empty() ? "" : ": " + report.stop_detail) << "): moved "
                << report.pages.moved << " of " << report.requested_pages << " pages\n";
      return kFailure;
  }
}

}  // namespace

void add_migrate_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<MigrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "migrate", "Move the pages of a process to a NUMA node (rate-limited, exact accounting)");
  cmd->footer(
      "Finds the process's resident pages (only those on --from, only inside --range when\n"
      "given) and moves them to --to with move_pages(2), batch by batch. Stops cleanly when\n"
      "the target node's free memory would drop below max(high watermark, 2% of the node),\n"
      "on Ctrl-C, or when the process exits. Exit 0 when every batch ran, 1 when it stopped\n"
      "early (permission, process gone, low memory, cancelled), 2 for bad input.\n\n"
      "Examples:\n"
      "  tierctl migrate --pid 1234 --to 0\n"
      "  tierctl migrate --pid 1234 --from 2 --to 0 --rate 200 --json\n"
      "  tierctl migrate --pid 1234 --to 1 --range 0x7f0000000000-0x7f0010000000");
  cmd->add_option("--pid", options->pid, "Process whose pages move")->type_name("PID")->required();
  cmd->add_option("--to", options->to, "Target NUMA node")->type_name("NODE")->required();
  cmd->add_option("--from", options->from, "Only move pages now on this node")->type_name("NODE");
  cmd->add_option("--range", options->range,
                  "Only pages in [START, END): hex (0x...) or decimal addresses")
      ->type_name("START-END");
  cmd->add_option("--rate", options->rate, "Limit to this many MB/s (1 MB = 2^20 bytes)")
      ->type_name("MBPS");
  cmd->add_option("--threads", options->threads,
                  "Move this many contiguous shards at once (ignored with --rate)")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_flag("--json", options->json, "Print the accounting as JSON (docs/cli.md)");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_migrate(global, *options); };
  });
}

}  // namespace tierctl
