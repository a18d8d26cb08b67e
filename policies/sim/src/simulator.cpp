#include "tier/sim/simulator.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "page_model.hpp"
#include "regions.hpp"
#include "scoring.hpp"

namespace tier::sim {

namespace {

constexpr double kBytesPerMB = 1 << 20;  // MB = 2^20 B, like PageMover and the kernel

std::vector<std::uint64_t> allocation(const Trace& trace, std::size_t epoch) {
  std::vector<std::uint64_t> pages;
  for (std::size_t w = 0; w < trace.workloads.size(); ++w) {
    pages.push_back(trace.allocated(epoch, w));
  }
  return pages;
}

}  // namespace

struct Simulator::Impl {
  const Trace& trace;
  Machine machine;
  SimOptions options;
  std::vector<unsigned> cpu_node;  // per workload
  detail::PageModel model;
  std::vector<heat::HeatMap> heat;  // per workload
  detail::Activity activity;
  std::size_t next = 0;
  std::uint64_t fast_pages = 0;  // tier-0 capacity in pages (the oracle's room)
  std::vector<std::shared_ptr<const Distribution>> truth;  // per epoch, empirical filled in
  // Oracle share per distinct distribution (the pointer keeps it alive).
  std::vector<std::pair<std::shared_ptr<const Distribution>, double>> oracle_cache;
  policy::Snapshot snapshot;
  policy::Plan last_plan;  // the last step's, for Simulator::last_plan()

  Impl(const Trace& t, Machine m, SimOptions o, std::vector<unsigned> cpus,
       std::vector<unsigned> first_touch)
      : trace(t),
        machine(std::move(m)),
        options(std::move(o)),
        cpu_node(std::move(cpus)),
        model(t, machine, std::move(first_touch)) {}

  const std::shared_ptr<const Distribution>& truth_of(std::size_t epoch) {
    if (!truth[epoch]) {
      truth[epoch] = std::make_shared<const Distribution>(
          empirical_distribution(trace, trace.epochs[epoch].samples));
    }
    return truth[epoch];
  }

  double oracle(const std::shared_ptr<const Distribution>& d) {
    for (const auto& [cached, share] : oracle_cache) {
      if (cached == d) return share;
    }
    const double share = detail::oracle_share(*d, fast_pages);
    oracle_cache.emplace_back(d, share);
    return share;
  }

  void ingest(std::size_t epoch, EpochReport& report) {
    for (std::uint64_t g : activity.touched) activity.epoch_weight[g] = 0;
    activity.touched.clear();
    for (const TraceSample& s : trace.epochs[epoch].samples) {
      report.samples += s.count;
      std::uint64_t pages = 0;
      std::size_t w = 0;
      model.index().for_each_piece(s.pid, s.addr, s.length,
                                   [&](std::uint32_t wl, std::uint64_t, std::uint64_t n) {
                                     pages += n;
                                     w = wl;
                                   });
      if (pages == 0 || s.count == 0) {
        report.unmapped_samples += s.count;
        continue;
      }
      heat[w].add(s.addr, s.length, static_cast<double>(s.count));
      const double each = static_cast<double>(s.count) / static_cast<double>(pages);
      model.index().for_each_piece(s.pid, s.addr, s.length,
                                   [&](std::uint32_t wl, std::uint64_t first, std::uint64_t n) {
                                     for (std::uint64_t p = first; p < first + n; ++p) {
                                       const std::uint64_t g = model.offset(wl) + p;
                                       if (activity.epoch_weight[g] == 0)
                                         activity.touched.push_back(g);
                                       activity.epoch_weight[g] += each;
                                       activity.last_epoch[g] = static_cast<std::int32_t>(epoch);
                                     }
                                   });
    }
  }

  void build_snapshot(std::size_t epoch, EpochReport& report) {
    policy::Snapshot s;
    s.now_s = static_cast<double>(epoch + 1) * trace.epoch_s;
    s.tick_s = trace.epoch_s;
    s.budget_mbps = options.budget_mbps;
    s.latency_ns = machine.latency_ns;
    for (const MachineNode& n : machine.nodes) {
      s.nodes.push_back({n.id, n.tier, n.has_cpus, n.capacity_bytes, model.free_bytes(n.id),
                         n.high_watermark_bytes});
    }
    const detail::RegionOptions region_options{trace.epoch_s, options.heat_band_ratio,
                                               options.cold_regions};
    for (std::size_t w = 0; w < trace.workloads.size(); ++w) {
      const TraceWorkload& tw = trace.workloads[w];
      policy::WorkloadState ws;
      ws.id = tw.id;
      ws.workload_class = tw.workload_class;
      ws.priority = tw.priority;
      ws.pids = {static_cast<pid_t>(tw.pid)};
      ws.cpu_nodes = {static_cast<int>(cpu_node[w])};
      if (auto q = options.quota_bytes.find(tw.id); q != options.quota_bytes.end()) {
        ws.quota_bytes = q->second;
      }
      if (auto b = options.workload_budget_mbps.find(tw.id);
          b != options.workload_budget_mbps.end()) {
        ws.budget_mbps = b->second;
      }
      ws.regions = detail::build_regions(trace, w, model, heat[w], activity, region_options,
                                         ws.resident_bytes_by_node);
      report.regions += ws.regions.size();
      s.workloads.push_back(std::move(ws));
    }
    std::sort(
        s.nodes.begin(), s.nodes.end(),
        [](const policy::NodeState& a, const policy::NodeState& b) { return a.node < b.node; });
    snapshot = std::move(s);
  }

  void apply(const policy::Plan& plan, std::size_t epoch, EpochReport& report) {
    const auto budget = [&](double mbps) {
      return mbps > 0 ? mbps * kBytesPerMB * trace.epoch_s
                      : std::numeric_limits<double>::infinity();
    };
    std::vector<double> workload_budget;
    for (const TraceWorkload& w : trace.workloads) {
      auto b = options.workload_budget_mbps.find(w.id);
      workload_budget.push_back(budget(b == options.workload_budget_mbps.end() ? 0 : b->second));
    }
    const detail::ApplyResult r = model.apply(plan.moves, epoch, options.ping_pong_window,
                                              budget(options.budget_mbps), workload_budget);
    report.moves_planned = plan.moves.size();
    report.failed_moves = r.failed_moves;
    report.dropped_moves = r.dropped_moves;
    report.pages_migrated = r.pages_migrated;
    report.bytes_migrated = r.pages_migrated * trace.page_bytes;
    report.failed_bytes = r.failed_bytes;
    report.dropped_bytes = r.dropped_bytes;
    report.ping_pong_pages = r.ping_pong_pages;
  }
};

Simulator::Simulator(const Trace& trace, Machine machine, SimOptions options) {
  validate(trace);
  validate(machine);
  if (trace.epochs.empty()) throw std::invalid_argument("the trace has no epochs");
  if (trace.workloads.empty()) throw std::invalid_argument("the trace has no workloads");
  std::vector<unsigned> cpus, first_touch;
  for (const TraceWorkload& w : trace.workloads) {
    auto it = options.workload_cpu_node.find(w.id);
    const unsigned cpu = it == options.workload_cpu_node.end() ? options.cpu_node : it->second;
    const MachineNode* n = machine.node(cpu);
    if (n == nullptr || !n->has_cpus) {
      throw std::invalid_argument("CPU node " + std::to_string(cpu) + " of workload " + w.id +
                                  " is not a node with CPUs in the machine");
    }
    cpus.push_back(cpu);
    const unsigned touch = options.first_touch_node.value_or(cpu);
    if (machine.node(touch) == nullptr) {
      throw std::invalid_argument("first-touch node " + std::to_string(touch) + " is not a node");
    }
    first_touch.push_back(touch);
  }
  for (const auto& [id, node] : options.workload_cpu_node) {
    bool known = false;
    for (const TraceWorkload& w : trace.workloads) known = known || w.id == id;
    if (!known) throw std::invalid_argument("CPU node given for unknown workload " + id);
  }
  impl_ = std::make_unique<Impl>(trace, std::move(machine), std::move(options), std::move(cpus),
                                 std::move(first_touch));
  Impl& s = *impl_;
  for (const MachineNode& n : s.machine.nodes) {
    if (n.tier == 0) s.fast_pages += n.capacity_bytes / trace.page_bytes;
  }
  const auto page_shift = static_cast<unsigned>(std::countr_zero(trace.page_bytes));
  for (const TraceWorkload& w : trace.workloads) {
    heat::HeatMapConfig config = s.options.heat;
    config.tracked_bytes = w.pages() * trace.page_bytes;
    config.min_granule_shift = std::max(page_shift, config.min_granule_shift);
    heat::HeatMap map(config);
    std::vector<heat::AddressRange> ranges;
    for (const Mapping& m : w.mappings)
      ranges.push_back({m.start, m.start + m.pages * trace.page_bytes});
    map.set_tracked_ranges(std::move(ranges));
    s.heat.push_back(std::move(map));
  }
  const std::uint64_t total_pages =
      s.model.offset(trace.workloads.size() - 1) + trace.workloads.back().pages();
  s.activity.epoch_weight.assign(total_pages, 0);
  s.activity.last_epoch.assign(total_pages, -1);
  for (const TraceEpoch& e : trace.epochs) s.truth.push_back(e.truth);
  s.model.allocate(allocation(trace, 0));
}

Simulator::~Simulator() = default;

bool Simulator::done() const {
  return impl_->next >= impl_->trace.epochs.size();
}

EpochReport Simulator::step(policy::Policy& policy) {
  if (done()) throw std::logic_error("Simulator::step after the last epoch");
  Impl& s = *impl_;
  const std::size_t e = s.next++;
  EpochReport report;
  report.epoch = e;
  report.now_s = static_cast<double>(e + 1) * s.trace.epoch_s;
  s.model.allocate(allocation(s.trace, e));
  s.ingest(e, report);
  s.build_snapshot(e, report);
  s.last_plan = policy.plan(s.snapshot);
  s.apply(s.last_plan, e, report);
  for (heat::HeatMap& map : s.heat) map.end_epoch();
  // The placement now serves the next epoch's accesses; its pages are first
  // touched before any of them, so place them before scoring.
  const std::size_t scored = e + 1 < s.trace.epochs.size() ? e + 1 : e;
  s.model.allocate(allocation(s.trace, scored));
  const auto& truth = s.truth_of(scored);
  const detail::Score score = detail::score_placement(s.model, s.machine, *truth, s.cpu_node);
  report.scored = score.scored;
  report.fast_share = score.fast_share;
  report.mean_latency_ns = score.mean_latency_ns;
  report.oracle_share = s.oracle(truth);
  for (const MachineNode& n : s.machine.nodes) {
    if (n.tier == 0) report.fast_used_bytes += s.model.used_bytes(n.id);
  }
  return report;
}

SimResult Simulator::run(policy::Policy& policy) {
  SimResult result;
  while (!done()) result.epochs.push_back(step(policy));
  result.summary = summarize(result.epochs, impl_->options.checkpoints);
  return result;
}

int Simulator::node_of(std::size_t workload, std::uint64_t page) const {
  return impl_->model.node_of(workload, page);
}

std::uint64_t Simulator::used_bytes(unsigned node) const {
  return impl_->model.used_bytes(node);
}

const policy::Snapshot& Simulator::last_snapshot() const {
  return impl_->snapshot;
}

const policy::Plan& Simulator::last_plan() const {
  return impl_->last_plan;
}

double Simulator::fast_share(const Distribution& truth) const {
  return detail::score_placement(impl_->model, impl_->machine, truth, impl_->cpu_node).fast_share;
}

double Simulator::oracle_share(const Distribution& truth) const {
  return detail::oracle_share(truth, impl_->fast_pages);
}

SimResult simulate(const Trace& trace, const Machine& machine, policy::Policy& policy,
                   const SimOptions& options) {
  return Simulator(trace, machine, options).run(policy);
}

Summary summarize(const std::vector<EpochReport>& epochs,
                  const std::vector<std::size_t>& checkpoints) {
  Summary s;
  s.epochs = epochs.size();
  for (const EpochReport& r : epochs) {
    if (r.scored) {
      ++s.scored_epochs;
      s.mean_fast_share += r.fast_share;
      s.mean_oracle_share += r.oracle_share;
      s.mean_latency_ns += r.mean_latency_ns;
    }
    s.pages_migrated += r.pages_migrated;
    s.bytes_migrated += r.bytes_migrated;
    s.ping_pong_pages += r.ping_pong_pages;
    s.moves_planned += r.moves_planned;
    s.failed_moves += r.failed_moves;
    s.dropped_moves += r.dropped_moves;
    s.failed_bytes += r.failed_bytes;
    s.dropped_bytes += r.dropped_bytes;
  }
  if (s.scored_epochs > 0) {
    const auto n = static_cast<double>(s.scored_epochs);
    s.mean_fast_share /= n;
    s.mean_oracle_share /= n;
    s.mean_latency_ns /= n;
  }
  if (!epochs.empty()) {
    s.final_fast_share = epochs.back().fast_share;
    s.final_oracle_share = epochs.back().oracle_share;
  }
  for (std::size_t k : checkpoints) {
    if (k == 0 || k > epochs.size()) continue;
    const EpochReport& r = epochs[k - 1];
    s.checkpoints.push_back({k, r.fast_share, r.oracle_share, r.mean_latency_ns});
  }
  return s;
}

}  // namespace tier::sim
