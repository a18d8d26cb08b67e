// policy_bench: one placement-policy tick on 64 GiB tracked in 1 M regions
// (64 KiB each) over a 4-node machine (2 fast, 2 slow), heat Zipf-like, the
// fast tier full — the worst case the issue names (tick ≤ 50 ms on one core).
// `static` is the floor: the cost of walking the snapshot at all.
//
// Every iteration is the next tick of one policy object: between them (not
// timed) the previous plan's moves are applied to the snapshot and the clock
// advances a second, as the daemon's next snapshot would show them. Replaying
// one unchanged snapshot instead would have the policy find the regions it
// just moved still in place, resting, tick after tick: a history no real
// tick has, and a cost that grows with the iteration count.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "tier/policy/policy.hpp"

namespace {

using tier::policy::Snapshot;

Snapshot big_snapshot(std::size_t regions, std::size_t workloads) {
  constexpr std::uint64_t kRegion = 64 << 10;
  const std::uint64_t total = regions * kRegion;
  Snapshot s;
  // Fast nodes hold a quarter of the data, full to their high watermark.
  const std::uint64_t fast = total / 8, slow = total;
  s.nodes = {{0, 0, true, fast, fast / 25, 0},
             {1, 0, true, fast, fast / 25, 0},
             {2, 1, false, slow, slow / 2, 0},
             {3, 1, false, slow, slow / 2, 0}};
  s.latency_ns = {{100, 150, 250, 300}, {150, 100, 300, 250}};
  s.now_s = 1000;
  s.tick_s = 1;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uniform(0, 1);
  const std::size_t per = regions / workloads;
  for (std::size_t w = 0; w < workloads; ++w) {
    tier::policy::WorkloadState state;
    state.id = "w" + std::to_string(w);
    state.workload_class = w % 2 ? tier::WorkloadClass::online : tier::WorkloadClass::offline;
    state.cpu_nodes = {static_cast<int>(w % 2)};
    state.pids = {static_cast<pid_t>(1000 + w)};
    state.regions.resize(per);
    for (std::size_t i = 0; i < per; ++i) {
      tier::policy::Region& r = state.regions[i];
      r.pid = state.pids[0];
      r.start = 0x100000000ULL + i * kRegion;
      r.end = r.start + kRegion;
      r.node = static_cast<int>(uniform(rng) < 0.25 ? w % 2 : 2 + w % 2);
      // Zipf-ish heat in decayed samples: 1e5 / rank over a random order.
      r.heat = 1e5 / (1.0 + std::floor(uniform(rng) * static_cast<double>(per)));
      r.accesses = static_cast<std::uint64_t>(r.heat);
      r.last_access_s = 1000 - uniform(rng) * 100;
    }
    s.workloads.push_back(std::move(state));
  }
  return s;
}

// What the daemon's next snapshot shows after `plan` was carried out.
void apply(Snapshot& s, const tier::policy::Plan& plan) {
  for (const tier::policy::Move& move : plan.moves) {
    for (tier::policy::WorkloadState& w : s.workloads) {
      if (w.pids.front() != move.pid) continue;
      auto it = std::upper_bound(
          w.regions.begin(), w.regions.end(), move.start,
          [](std::uint64_t start, const tier::policy::Region& r) { return start < r.start; });
      if (it == w.regions.begin()) break;
      tier::policy::Region& r = *std::prev(it);
      for (tier::policy::NodeState& n : s.nodes) {
        if (static_cast<int>(n.node) == r.node) n.free_bytes += r.bytes();
        if (n.node == move.target_node) n.free_bytes -= r.bytes();
      }
      r.node = static_cast<int>(move.target_node);
      break;
    }
  }
  s.now_s += s.tick_s;
}

// FNV-1a over every field of every move of the first kFirstTicks ticks of a
// fresh policy object (untimed, on a copy of the snapshot): a refactor of a
// policy must leave these plans byte-identical, which the digest shows.
constexpr int kFirstTicks = 5;

void print_first_ticks(Snapshot snapshot, const tier::policy::PolicyInfo& info, const char* name) {
  auto policy = info.make(tier::policy::resolve_params(info, {}));
  std::uint64_t h = 14695981039346656037ULL;
  std::size_t moves = 0;
  for (int tick = 0; tick < kFirstTicks; ++tick) {
    const tier::policy::Plan plan = policy->plan(snapshot);
    for (const tier::policy::Move& m : plan.moves) {
      const std::string line = std::to_string(tick) + ' ' + std::to_string(m.pid) + ' ' +
                               std::to_string(m.start) + ' ' + std::to_string(m.end) + ' ' +
                               std::to_string(m.target_node) + ' ' + m.workload_id + ' ' +
                               m.reason + '\n';
      for (unsigned char c : line) h = (h ^ c) * 1099511628211ULL;
    }
    moves += plan.moves.size();
    apply(snapshot, plan);
  }
  std::fprintf(stderr, "policy_bench: %s first %d ticks: %zu moves, plans fnv1a64 %016llx\n", name,
               kFirstTicks, moves, static_cast<unsigned long long>(h));
}

void tick(benchmark::State& state, const char* name) {
  Snapshot snapshot = big_snapshot(static_cast<std::size_t>(state.range(0)), 16);
  const tier::policy::PolicyInfo* info = tier::policy::find_policy(name);
  auto policy = info->make(tier::policy::resolve_params(*info, {}));
  print_first_ticks(snapshot, *info, name);
  std::size_t moves = 0;
  for (auto _ : state) {
    tier::policy::Plan plan = policy->plan(snapshot);
    moves = plan.moves.size();
    benchmark::DoNotOptimize(plan);
    state.PauseTiming();
    apply(snapshot, plan);
    state.ResumeTiming();
  }
  state.counters["regions"] = static_cast<double>(state.range(0));
  state.counters["moves"] = static_cast<double>(moves);
}

void BM_Static(benchmark::State& state) {
  tick(state, "static");
}
void BM_Balanced(benchmark::State& state) {
  tick(state, "balanced");
}
void BM_Tpp(benchmark::State& state) {
  tick(state, "tpp");
}

BENCHMARK(BM_Static)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Balanced)->Arg(1 << 20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Tpp)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
