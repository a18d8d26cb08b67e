// Runs the probes over the initiator x target matrix and checks the config.
#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <thread>

#include "internal.hpp"
#include "loaded.hpp"
#include "tier/bench/bench.hpp"

namespace tier::bench {

namespace {

std::string node_list(const Topology& topology) {
  std::string out;
  for (const auto& node : topology.nodes()) {
    out += (out.empty() ? "" : ",") + std::to_string(node.id);
  }
  return out;
}

std::vector<unsigned> unique_sorted(std::vector<unsigned> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Enough loads to average over many pages, few enough to keep a pass < 1 s.
constexpr std::size_t kMaxLoadsPerPass = 1u << 22;
constexpr std::size_t kLoadedLoads = 1u << 20;

}  // namespace

std::uint64_t llc_bytes(const SysRoot& root) {
  std::uint64_t largest = 0;
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache";
  for (unsigned index : numbered_entries(root, dir, "index")) {
    auto text = root.read(dir + "/index" + std::to_string(index) + "/size");
    if (!text) continue;
    auto size = parse_size(std::string(text->substr(0, text->find_last_not_of(" \n") + 1)));
    if (size) largest = std::max(largest, *size);
  }
  return largest;
}

std::string size_warning(std::uint64_t size, std::uint64_t llc) {
  if (llc == 0 || size >= llc) return "";
  return "the buffer (" + std::to_string(size) + " bytes) fits in the last-level cache (" +
         std::to_string(llc) +
         " bytes): the figures measure the cache, not the memory; use --size of at least " +
         std::to_string(8 * llc) + " bytes (8 x LLC) or leave it to the default";
}

std::uint64_t default_size(std::uint64_t llc, std::optional<std::uint64_t> target_free) {
  std::uint64_t size = std::max(kDefaultSizeBytes, 8 * llc);
  if (target_free) size = std::min(size, *target_free / 4);
  size = size / kLineBytes * kLineBytes;
  return std::max(size, kMinSizeBytes);
}

BenchConfig resolve_config(const Topology& topology, BenchConfig config) {
  if (config.initiators.empty()) {
    for (const auto& node : topology.nodes()) {
      if (!node.cpus.empty()) config.initiators.push_back(node.id);
    }
  }
  if (config.targets.empty()) {
    for (const auto& node : topology.nodes()) {
      if (node.memory_total_bytes > 0) config.targets.push_back(node.id);
    }
  }
  config.initiators = unique_sorted(std::move(config.initiators));
  config.targets = unique_sorted(std::move(config.targets));
  for (unsigned id : config.initiators) {
    const Node* node = topology.node(id);
    if (node == nullptr) {
      throw BenchConfigError("initiator node " + std::to_string(id) +
                             " does not exist (nodes: " + node_list(topology) + ")");
    }
    if (node->cpus.empty()) {
      throw BenchConfigError("initiator node " + std::to_string(id) +
                             " has no CPUs: pick a node with CPUs (see `tierctl topo`)");
    }
  }
  for (unsigned id : config.targets) {
    const Node* node = topology.node(id);
    if (node == nullptr) {
      throw BenchConfigError("target node " + std::to_string(id) +
                             " does not exist (nodes: " + node_list(topology) + ")");
    }
    if (node->memory_total_bytes == 0) {
      throw BenchConfigError("target node " + std::to_string(id) + " has no memory");
    }
    if (config.size && node->memory_free_bytes && *config.size > *node->memory_free_bytes) {
      throw BenchConfigError("--size " + std::to_string(*config.size) +
                             " bytes is more than the free memory of node " + std::to_string(id) +
                             " (" + std::to_string(*node->memory_free_bytes) + " bytes)");
    }
  }
  if (config.initiators.empty()) throw BenchConfigError("no node with CPUs to run on");
  if (config.targets.empty()) throw BenchConfigError("no node with memory to measure");
  if (config.size && *config.size < kMinSizeBytes) {
    throw BenchConfigError("--size " + std::to_string(*config.size) +
                           " bytes is too small (at least " + std::to_string(kMinSizeBytes) +
                           " bytes, and much larger than the LLC)");
  }
  if (config.size) *config.size = *config.size / kLineBytes * kLineBytes;
  if (config.threads && *config.threads <= 0) {
    throw BenchConfigError("--threads must be at least 1, got " + std::to_string(*config.threads));
  }
  if (config.repeat <= 0) {
    throw BenchConfigError("--repeat must be at least 1, got " + std::to_string(config.repeat));
  }
  return config;
}

std::vector<std::size_t> round_order(std::size_t count, int round, int rounds) {
  std::vector<std::size_t> order(count);
  if (count == 0) return order;
  const std::size_t start = rounds > 0 ? static_cast<std::size_t>(round % rounds) * count /
                                             static_cast<std::size_t>(rounds)
                                       : 0;
  for (std::size_t k = 0; k < count; ++k) order[k] = (start + k) % count;
  return order;
}

namespace {

// One initiator -> target pair while it is measured: its buffer and the
// passes of every round so far.
struct PairRun {
  PairResult result;
  std::unique_ptr<detail::NodeBuffer> buffer;
  std::vector<double> latency, read, write, copy;
};

// Runs `work` on a thread pinned to `cpus` (the measurement's initiator).
void on_initiator(const CpuList& cpus, const std::function<void()>& work) {
  std::thread([&] {
    detail::pin_to(cpus);
    work();
  }).join();
}

// Every target of one initiator, each in its own buffer on its node (one
// buffer per node at a time, as one pair alone would hold), measured in
// rounds: each round takes every target once, in an order that starts at a
// different target each round, and a figure is the median of its rounds.
// A drift over the run (a cache or TLB that grows, a host that gets busier)
// then falls on every target alike instead of on the ones measured first.
void run_initiator(const Node& initiator, const std::vector<const Node*>& targets,
                   const BenchConfig& config, std::uint64_t llc,
                   const std::function<void(const std::string&)>& progress,
                   std::vector<PairResult>& out) {
  using namespace detail;
  std::vector<PairRun> runs(targets.size());
  auto say = [&](const PairRun& run, const std::string& what) {
    if (progress) {
      progress("node " + std::to_string(run.result.initiator) + " -> node " +
               std::to_string(run.result.target) + ": " + what);
    }
  };
  for (std::size_t k = 0; k < targets.size(); ++k) {
    PairRun& run = runs[k];
    const Node& target = *targets[k];
    run.result.initiator = initiator.id;
    run.result.target = target.id;
    run.result.size_bytes =
        config.size ? *config.size : default_size(llc, target.memory_free_bytes);
    run.result.threads = config.threads ? *config.threads : static_cast<int>(initiator.cpus.size());
    run.buffer = std::make_unique<NodeBuffer>(run.result.size_bytes, target.id);
    on_initiator(initiator.cpus, [&] {
      run.buffer->touch();
      build_chase(*run.buffer, 0x7469657262656e63ull ^ target.id);
    });
    run.result.huge_pages = run.buffer->huge_pages();
    run.result.on_target = run.buffer->fraction_on(target.id);
  }

  auto in_rounds = [&](const std::function<void(PairRun&, int, const std::string&)>& measure) {
    for (int round = 0; round < config.repeat; ++round) {
      const std::string of =
          "round " + std::to_string(round + 1) + " of " + std::to_string(config.repeat);
      for (std::size_t k : round_order(runs.size(), round, config.repeat)) {
        measure(runs[k], round, of);
      }
    }
  };
  // 1. Idle latency: the chain built above.
  if (config.latency) {
    in_rounds([&](PairRun& run, int, const std::string& of) {
      say(run, "idle latency, " + of);
      NodeBuffer& buffer = *run.buffer;
      on_initiator(initiator.cpus, [&] {
        const std::size_t loads = std::min(buffer.size() / kLineBytes, kMaxLoadsPerPass);
        chase_ns(buffer, std::min(loads, std::size_t{1} << 18));  // warm TLB and caches
        run.latency.push_back(chase_ns(buffer, loads));
      });
    });
  }
  // 2. The loaded sweep chases the same chain while loaders read a second
  //    buffer on the target: one pair at a time.
  if (config.loaded) {
    for (PairRun& run : runs) {
      say(run, "loaded latency");
      NodeBuffer load(run.result.size_bytes, run.result.target);
      load.touch();
      run.result.huge_pages = run.result.huge_pages && load.huge_pages();
      run.result.loaded = loaded_sweep(*run.buffer, load, initiator.cpus, run.result.threads,
                                       std::min(run.buffer->size() / kLineBytes, kLoadedLoads));
    }
  }
  // 3. Bandwidth last: the write and copy kernels overwrite the chain.
  if (config.bandwidth) {
    in_rounds([&](PairRun& run, int round, const std::string& of) {
      auto pass = [&](Kernel kernel, const char* name, std::vector<double>& passes) {
        say(run, std::string(name) + " bandwidth, " + of);
        // The first round's first pass warms up (page tables, TLB).
        if (round == 0) bandwidth_pass(*run.buffer, kernel, run.result.threads, initiator.cpus);
        passes.push_back(bandwidth_pass(*run.buffer, kernel, run.result.threads, initiator.cpus));
      };
      pass(Kernel::read, "read", run.read);
      pass(Kernel::write, "write", run.write);
      pass(Kernel::copy, "copy", run.copy);
    });
  }

  for (PairRun& run : runs) {
    if (config.latency) run.result.latency_ns = median(run.latency);
    if (config.bandwidth) {
      run.result.read_mbps = median(run.read);
      run.result.write_mbps = median(run.write);
      run.result.copy_mbps = median(run.copy);
    }
    run.buffer.reset();
    out.push_back(std::move(run.result));
  }
}

}  // namespace

BenchReport run_bench(const Topology& topology, const BenchConfig& resolved,
                      const std::function<void(const std::string&)>& progress) {
  BenchReport report;
  report.initiators = resolved.initiators;
  report.targets = resolved.targets;
  report.repeat = resolved.repeat;
  const std::uint64_t llc = llc_bytes(SysRoot("/"));
  std::vector<const Node*> targets;
  for (unsigned t : resolved.targets) targets.push_back(topology.node(t));
  for (unsigned i : resolved.initiators) {
    run_initiator(*topology.node(i), targets, resolved, llc, progress, report.pairs);
  }
  // One warning per distinct buffer size that fits in the cache.
  for (const PairResult& pair : report.pairs) {
    std::string warning = size_warning(pair.size_bytes, llc);
    if (!warning.empty() &&
        std::find(report.warnings.begin(), report.warnings.end(), warning) == report.warnings.end())
      report.warnings.push_back(std::move(warning));
  }
  return report;
}

}  // namespace tier::bench
