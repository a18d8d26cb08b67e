// pool_layout_bench: one compute_layout() with 200 claims on a 256-CPU,
// 8-node machine (16 cores x 2 threads per node) — the recompute tierd runs
// on every workload arrival and exit (budget: recompute + cgroup writes,
// p99 <= 50 ms; the recompute alone should stay well under 1 ms).
//
// `fresh`: every claim is new (the daemon's first layout). `steady`: every
// claim holds what the first layout gave it (a recompute after one arrival
// or exit, the common case).
#include <benchmark/benchmark.h>

#include <random>

#include "tier/cpu/pool_layout.hpp"

namespace {

using namespace tier::cpu;

CpuInventory big_machine() {
  constexpr unsigned kNodes = 8, kCoresPerNode = 16, kThreads = 2, kCores = kNodes * kCoresPerNode;
  std::vector<LogicalCpu> cpus;
  for (unsigned t = 0; t < kThreads; ++t) {
    for (unsigned c = 0; c < kCores; ++c) {
      cpus.push_back({c + t * kCores, c, c / kCoresPerNode, c / kCoresPerNode});
    }
  }
  return CpuInventory(std::move(cpus));
}

tier::Topology topology_of(const CpuInventory& inventory) {
  tier::TopologyData data;
  for (unsigned n : inventory.nodes()) {
    tier::Node node;
    node.id = n;
    node.cpus = inventory.cpus_of_node(n);
    node.local_cpus = node.cpus;
    data.nodes.push_back(node);
  }
  return tier::Topology(std::move(data));
}

// A mix like a busy host: most workloads shared or per-node, a third with
// small exclusive/immovable claims (about 170 CPUs asked for in all).
std::vector<Claim> claims(unsigned count) {
  std::mt19937 rng(42);
  const char* pools[] = {"shared",      "shared",      "numa:3",      "numa:6", "immovable:1",
                         "exclusive:1", "exclusive:2", "immovable:2", "shared", "exclusive:4"};
  std::vector<Claim> out;
  for (unsigned i = 0; i < count; ++i) {
    out.push_back({"w" + std::to_string(i),
                   static_cast<tier::WorkloadClass>(rng() % 3),
                   *PoolSpec::parse(pools[rng() % std::size(pools)]),
                   {}});
  }
  return out;
}

void BM_ComputeLayoutFresh(benchmark::State& state) {
  const CpuInventory inventory = big_machine();
  const tier::Topology topology = topology_of(inventory);
  const std::vector<Claim> input = claims(static_cast<unsigned>(state.range(0)));
  for (auto _ : state) {
    Layout layout = compute_layout(inventory, topology, {}, input);
    benchmark::DoNotOptimize(layout);
  }
}
BENCHMARK(BM_ComputeLayoutFresh)->Arg(200)->Unit(benchmark::kMicrosecond);

void BM_ComputeLayoutSteady(benchmark::State& state) {
  const CpuInventory inventory = big_machine();
  const tier::Topology topology = topology_of(inventory);
  std::vector<Claim> input = claims(static_cast<unsigned>(state.range(0)));
  const Layout first = compute_layout(inventory, topology, {}, input);
  for (auto& claim : input) {
    for (const auto& a : first.assignments) {
      if (a.workload == claim.workload && claim.pool.claims_cpus()) claim.held = a.cpus;
    }
  }
  for (auto _ : state) {
    Layout layout = compute_layout(inventory, topology, {}, input);
    benchmark::DoNotOptimize(layout);
  }
  state.counters["refused"] = static_cast<double>(first.refused.size());
}
BENCHMARK(BM_ComputeLayoutSteady)->Arg(200)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
