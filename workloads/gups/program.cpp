#include "program.hpp"

#include <unistd.h>

#include <algorithm>
#include <boost/json/object.hpp>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../own_residency.hpp"
#include "options.hpp"
#include "phase_clock.hpp"
#include "placement.hpp"
#include "report.hpp"
#include "run_control.hpp"
#include "table.hpp"
#include "team.hpp"
#include "tier/json/json_text.hpp"
#include "worker.hpp"

namespace tier_workloads::gups {
namespace {

constexpr std::size_t kShowBad = 8;  // bad indices printed on stderr

boost::json::object node_object(const std::map<int, std::size_t>& pages) {
  boost::json::object out;
  for (const auto& [node, n] : pages) out[std::to_string(node)] = n;
  return out;
}

/// {node: pages} of `phase`'s hot subset, which may wrap past the end.
std::map<int, std::size_t> hot_pages(const PlacedBuffer& buffer, const Options& o,
                                     std::uint64_t phase) {
  const std::uint64_t start = o.layout().hot_start(phase) * 8;  // a page boundary
  const std::uint64_t head = std::min(o.hot, o.size - start);
  auto pages = own_page_nodes(buffer.data() + start, head);
  for (const auto& [node, n] : own_page_nodes(buffer.data(), o.hot - head)) pages[node] += n;
  return pages;
}

std::uint64_t total_updates(const std::vector<std::unique_ptr<Worker>>& workers) {
  std::uint64_t sum = 0;
  for (const auto& w : workers) sum += w->updates();
  return sum;
}

/// Replays every worker's updates, then checks every word, both in
/// parallel on the workers' CPUs.
Check verify(std::uint64_t* table, const Options& o,
             const std::vector<std::unique_ptr<Worker>>& workers) {
  const unsigned n = o.suite.threads;
  run_team(n, o.suite.cpus, [&](unsigned t) { workers[t]->replay(table); });
  const std::uint64_t words = o.size / 8, key = table_key(o.suite.seed);
  std::vector<Check> parts(n);
  run_team(n, o.suite.cpus, [&](unsigned t) {
    parts[t] = check_words(table, words * t / n, words * (t + 1) / n, key, kShowBad);
  });
  Check all;
  for (const auto& part : parts) all.merge(part, kShowBad);
  return all;
}

int run(const Options& o) {
  RunControl control;  // before any thread: they inherit its blocked signals
  Report report(o.suite.report, "gups", "updates");
  const Layout layout = o.layout();
  PlacedBuffer buffer(o.size, o.suite.node, o.suite.policy, TableFill(table_key(o.suite.seed)));
  auto* table = reinterpret_cast<std::uint64_t*>(buffer.data());

  boost::json::object ready;
  ready["pid"] = getpid();
  ready["base"] = reinterpret_cast<std::uintptr_t>(buffer.data());
  ready["size"] = o.size;
  ready["hot"] = o.hot;
  ready["ready"] = true;
  if (!control.ready(o.suite, tier::json_text(ready))) return 1;
  if (!control.wait_start(o.suite)) return 0;

  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned t = 0; t < o.suite.threads; ++t) {
    workers.push_back(std::make_unique<Worker>(layout, t, o.suite.seed));
  }
  double seconds = 0;
  {
    const PhaseClock clock(o.phase_shift_s, control.stopping());
    Team team(o.suite.threads, o.suite.cpus,
              [&](unsigned t) { workers[t]->run(table, control.stopping(), clock.phase()); });
    std::uint64_t last_ops = 0;
    double last_t = 0;
    seconds = control.run(o.suite, [&](double t) {
      const std::uint64_t ops = total_updates(workers);
      report.interval(t, ops - last_ops, t - last_t, nullptr);
      last_ops = ops;
      last_t = t;
    });
    team.join();
  }
  // The phases the workers updated in (a shift at the run's very end, seen
  // by none of them, had no hot subset).
  std::uint64_t phases = 1;
  for (const auto& w : workers) phases = std::max<std::uint64_t>(phases, w->phase_updates().size());

  Report::Final f;
  f.ops = total_updates(workers);
  f.seconds = seconds;
  f.verified_unit = "words";
  f.extra["size"] = o.size;
  f.extra["hot"] = o.hot;
  f.extra["hot_fraction"] = o.hot_fraction;
  f.extra["phases"] = phases;
  f.extra["threads"] = o.suite.threads;
  // Before the replay, which touches every page (and could fault or move it).
  f.extra["nodes"] = node_object(buffer.nodes());
  f.extra["hot_nodes"] = node_object(hot_pages(buffer, o, phases - 1));

  const Check check = verify(table, o, workers);
  f.verified = o.size / 8;
  f.bad = check.bad;
  if (check.bad > 0) {
    std::string first;
    for (auto i : check.first_bad) first += (first.empty() ? "" : ", ") + std::to_string(i);
    std::fprintf(stderr,
                 "tier-gups: %" PRIu64 " of %" PRIu64
                 " words differ after the replay (the first: %s)\n",
                 check.bad, f.verified, first.c_str());
  }
  report.final(f);
  return check.bad > 0 ? 1 : 0;
}

}  // namespace

int gups_main(int argc, char** argv) {
  Options o;
  try {
    o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tier-gups: %s\n%s", e.what(), usage().c_str());
    return 2;
  }
  if (o.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tier-gups: %s\n", e.what());
    return 1;
  }
}

}  // namespace tier_workloads::gups
