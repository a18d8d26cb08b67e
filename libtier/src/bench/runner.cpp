// Runs the probes over the initiator x target matrix and checks the config.
#include <algorithm>
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

namespace {

PairResult run_pair(const Node& initiator, const Node& target, const BenchConfig& config,
                    std::uint64_t llc, const std::function<void(const std::string&)>& progress) {
  using namespace detail;
  PairResult result;
  result.initiator = initiator.id;
  result.target = target.id;
  result.size_bytes = config.size ? *config.size : default_size(llc, target.memory_free_bytes);
  result.threads = config.threads ? *config.threads : static_cast<int>(initiator.cpus.size());
  auto say = [&](const std::string& what) {
    if (progress) {
      progress("node " + std::to_string(initiator.id) + " -> node " + std::to_string(target.id) +
               ": " + what);
    }
  };

  NodeBuffer buffer(result.size_bytes, target.id);
  std::thread([&] {
    pin_to(initiator.cpus);
    buffer.touch();
    build_chase(buffer, 0x7469657262656e63ull ^ target.id);
  }).join();
  result.huge_pages = buffer.huge_pages();
  result.on_target = buffer.fraction_on(target.id);
  const std::size_t lines = buffer.size() / kLineBytes;

  if (config.latency) {
    say("idle latency");
    std::thread([&] {
      pin_to(initiator.cpus);
      const std::size_t loads = std::min(lines, kMaxLoadsPerPass);
      chase_ns(buffer, std::min(loads, std::size_t{1} << 18));  // warm TLB and caches
      std::vector<double> passes;
      for (int i = 0; i < config.repeat; ++i) passes.push_back(chase_ns(buffer, loads));
      result.latency_ns = median(passes);
    }).join();
  }
  if (config.loaded) {
    say("loaded latency");
    NodeBuffer load(result.size_bytes, target.id);
    load.touch();
    result.huge_pages = result.huge_pages && load.huge_pages();
    result.loaded =
        loaded_sweep(buffer, load, initiator.cpus, result.threads, std::min(lines, kLoadedLoads));
  }
  if (config.bandwidth) {
    auto measure = [&](Kernel kernel, const char* name) {
      say(std::string(name) + " bandwidth");
      bandwidth_pass(buffer, kernel, result.threads, initiator.cpus);  // warm-up
      std::vector<double> passes;
      for (int i = 0; i < config.repeat; ++i) {
        passes.push_back(bandwidth_pass(buffer, kernel, result.threads, initiator.cpus));
      }
      return median(passes);
    };
    result.read_mbps = measure(Kernel::read, "read");
    result.write_mbps = measure(Kernel::write, "write");
    result.copy_mbps = measure(Kernel::copy, "copy");
  }
  return result;
}

}  // namespace

BenchReport run_bench(const Topology& topology, const BenchConfig& resolved,
                      const std::function<void(const std::string&)>& progress) {
  BenchReport report;
  report.initiators = resolved.initiators;
  report.targets = resolved.targets;
  report.repeat = resolved.repeat;
  const std::uint64_t llc = llc_bytes(SysRoot("/"));
  for (unsigned i : resolved.initiators) {
    for (unsigned t : resolved.targets) {
      report.pairs.push_back(
          run_pair(*topology.node(i), *topology.node(t), resolved, llc, progress));
    }
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
