// `tierctl migrate`: move a process's pages to a node, rate-limited, with an
// exact account of every page (docs/memory.md).
#include <array>
#include <cstdio>
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "error_output.hpp"
#include "interrupt.hpp"
#include "process_args.hpp"
#include "tier/json/json_text.hpp"
#include "tier/memory/page_mover.hpp"
#include "tier/memory/residency.hpp"
#include "usage.hpp"
#include "value_options.hpp"

namespace tierctl {

namespace {

struct MigrateOptions {
  Value<pid_t> pid;
  IdValue to, from;
  Value<tier::values::AddressRange> range;
  Value<double> rate;
  Value<std::uint64_t> threads;
  bool json = false;
};

/// More shards than this only contend (the kernel copies on the calling thread).
constexpr std::uint64_t kMaxMoverThreads = 1024;

/// The flags, converted: a bad one is a ValueError before anything is read.
struct MigrateRequest {
  pid_t pid = 0;
  unsigned to = 0;
  std::optional<unsigned> from;
  std::optional<tier::values::AddressRange> range;
  std::optional<double> rate;
  std::size_t threads = 1;
  bool json = false;
};

/// The target must have memory to move pages onto.
void require_memory(const tier::Topology& topo, unsigned node) {
  std::string nodes;
  for (const auto& n : topo.nodes()) {
    if (n.memory_total_bytes > 0) nodes += (nodes.empty() ? "" : ",") + std::to_string(n.id);
  }
  if (topo.node(node)->memory_total_bytes == 0) {
    throw UsageError("--to " + std::to_string(node) +
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

boost::json::object report_json(const MigrateRequest& options, const tier::MoveReport& report) {
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

void print_report(const MigrateRequest& options, const tier::MoveReport& report) {
  const auto& p = report.pages;
  char line[256];
  std::snprintf(line, sizeof line,
                "pid %d -> node %u: requested %llu pages (%.2f MiB), moved %llu (%.2f MiB), "
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

/// Why a move ended before every batch ran ("" when it completed).
std::string stop_message(const MigrateRequest& options, const tier::MoveReport& report) {
  const std::string moved = std::to_string(report.pages.moved) + " of " +
                            std::to_string(report.requested_pages) + " pages";
  switch (report.stop_reason) {
    case tier::StopReason::completed:
      return "";
    case tier::StopReason::permission:
      return "permission denied moving pages of pid " + std::to_string(options.pid) +
             " (another user's process needs CAP_SYS_NICE): moved " + moved + ", " +
             std::to_string(report.pages.already_there) + " already on node " +
             std::to_string(options.to) + ", " + std::to_string(report.pages.permission) +
             " not moved";
    default:
      return std::string("migration stopped early (") + tier::to_string(report.stop_reason) +
             (report.stop_detail.empty() ? "" : ": " + report.stop_detail) + "): moved " + moved;
  }
}

const char* failure_code(const tier::MoveReport& report) {
  return report.stop_reason == tier::StopReason::permission ? "permission" : "failed";
}

int run_migrate(const GlobalOptions& global, const MigrateOptions& flags) {
  tier::SysRoot root = global.root.empty() ? tier::SysRoot("/") : tier::SysRoot(global.root);
  MigrateRequest options;
  options.pid = flags.pid.required();
  options.range = flags.range.get();
  options.rate = flags.rate.get();
  options.threads = static_cast<std::size_t>(flags.threads.get_or(1));
  options.json = flags.json;
  require_user_process(root, options.pid, "to migrate");
  tier::Topology topo = tier::load_topology(topology_options(global));
  const tier::CpuList nodes = node_ids(topo);
  options.to = flags.to.required(nodes);
  require_memory(topo, options.to);
  options.from = flags.from.get(nodes);

  tier::ResidencyOptions scan;
  if (options.range) scan.range = std::pair{options.range->start, options.range->end};
  scan.keep_pages = true;
  tier::ResidencyReport residency;
  try {
    residency = tier::scan_residency(root, tier::real_memory_syscalls(), options.pid, scan);
  } catch (const tier::ResidencyError& e) {
    if (e.error == ESRCH)
      throw UsageError("--pid " + std::to_string(options.pid) + ": " + e.what());
    if (e.error == EPERM || e.error == EACCES) {
      throw Failure("permission denied reading the pages of pid " + std::to_string(options.pid) +
                        " (moving another user's pages needs CAP_SYS_NICE): nothing was moved",
                    "permission");
    }
    throw Failure(e.what());
  }
  // Pages migrate cannot see (a sparse mapping over 64 GiB on a kernel without
  // PAGEMAP_SCAN, summarised from numa_maps) are named, so "moved everything"
  // is never claimed for them.
  for (const auto& warning : residency.warnings)
    std::cerr << "tierctl: warning: " << warning << "\n";
  std::vector<tier::PageUnit> units;
  units.reserve(residency.pages.size());
  for (const auto& page : residency.pages) {
    if (options.from && page.node != *options.from) continue;
    units.push_back(tier::PageUnit{page.address, page.size, page.node});
  }

  tier::MoveOptions move;
  move.rate_mbps = options.rate;
  move.threads = options.threads;
  move.cancel = &cancel_on_interrupt();
  tier::watch_node_free_memory(move, root, options.to);
  tier::PageMover mover(tier::real_memory_syscalls());
  tier::MoveReport report = mover.move(options.pid, units, options.to, move);

  const std::string failure = stop_message(options, report);
  if (options.json) {
    // One document: the accounting, with the error when it stopped early.
    boost::json::object doc = report_json(options, report);
    if (!failure.empty()) add_error(doc, failure_code(report), failure);
    std::cout << tier::json_text(doc) << std::endl;
  } else {
    print_report(options, report);
  }
  if (failure.empty()) return kOk;
  std::cerr << "tierctl: " << failure << "\n";
  return kFailure;
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
  set_usage(*cmd, "tierctl migrate --pid PID --to NODE [OPTIONS]");
  add_pid_option(*cmd, "--pid", options->pid, "Process whose pages move")->required();
  add_node_option(*cmd, "--to", options->to, "Target NUMA node (one with memory)")->required();
  add_node_option(*cmd, "--from", options->from, "Only move pages now on this node");
  add_range_option(*cmd, "--range", options->range,
                   "Only pages in [START, END): hex (0x...) or decimal addresses");
  add_rate_option(*cmd, "--rate", options->rate,
                  "Limit to this many MB/s (1 MB = 2^20 bytes; above 0, at most 1000000)");
  add_count_option(*cmd, "--threads", options->threads, 1, kMaxMoverThreads,
                   "Move this many contiguous shards at once, 1 to 1024 (ignored with --rate)")
      ->default_str("1");
  cmd->add_flag("--json", options->json, "Print the accounting as JSON (docs/cli.md)");
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_migrate(global, *options); };
  });
}

}  // namespace tierctl
