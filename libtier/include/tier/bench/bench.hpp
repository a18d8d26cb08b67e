// Memory benchmarks behind `tierctl bench`: idle load latency, read/write/copy
// bandwidth and loaded latency for every initiator (CPU node) x target (memory
// node) pair, measured on the live machine.
//
// Method (docs/bench.md has the details):
//  - every buffer is an anonymous mapping, madvise(MADV_HUGEPAGE)d and bound to
//    the target node with mbind(MPOL_BIND) before its first touch;
//  - latency is a dependent pointer chase over a single random cycle of cache
//    lines (cyclic_permutation), timed by the one thread pinned to the
//    initiator's CPUs; the median ns per load of `repeat` passes is reported;
//  - bandwidth runs `threads` threads pinned round-robin to the initiator's
//    CPUs; MB/s = 10^6 bytes per second, copy counts the bytes copied once
//    (like mbw), read and write the bytes read or written;
//  - loaded latency (MLC style) chases on one CPU while the other threads read
//    the same target with decreasing injection delays.
//
// The pure parts (size parsing, permutation, matrix assembly, JSON) are free
// functions so they can be tested without touching memory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "tier/posix/sysroot.hpp"
#include "tier/topology/topology.hpp"

namespace tier::bench {

/// Bad benchmark configuration the user must fix (unknown node, initiator
/// without CPUs, target without memory, size too small, threads <= 0).
struct BenchConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Smallest accepted buffer: below this nothing but the caches is measured.
inline constexpr std::uint64_t kMinSizeBytes = 1ull << 20;
/// Default floor of the buffer size (also 8x the LLC when that is larger).
inline constexpr std::uint64_t kDefaultSizeBytes = 256ull << 20;
inline constexpr std::size_t kLineBytes = 64;

/// "4096", "64K", "16MiB", "1G", "2T" → bytes, in the value grammar's size
/// syntax (tier/values/value_scan.h: K/M/G/T or KiB/MiB/GiB/TiB, any case);
/// nullopt on anything else or overflow. For sysfs cache sizes ("32K"); a
/// flag goes through tier::values::parse_size, which names it and the range.
std::optional<std::uint64_t> parse_size(std::string_view text);

/// A permutation `next` of 0..n-1 forming one cycle through every slot
/// (Sattolo's algorithm): following next[] from any slot visits all n slots.
std::vector<std::uint32_t> cyclic_permutation(std::size_t n, std::uint64_t seed);

/// Size of the largest CPU cache (sysfs cpu0 cache/index*/size), 0 if unknown.
std::uint64_t llc_bytes(const SysRoot& root);

/// max(kDefaultSizeBytes, 8 x llc), capped to a quarter of the target's free
/// memory when known (the loaded mode holds two buffers), never below kMinSizeBytes.
std::uint64_t default_size(std::uint64_t llc, std::optional<std::uint64_t> target_free);

/// The warning `tierctl bench` gives for a buffer of `size` bytes on a machine
/// whose largest cache holds `llc` bytes (0: unknown): a buffer that fits in
/// the cache measures the cache, not the memory. Empty when size >= llc.
std::string size_warning(std::uint64_t size, std::uint64_t llc);

struct BenchConfig {
  std::vector<unsigned> initiators;   // empty: every node with CPUs
  std::vector<unsigned> targets;      // empty: every node with memory
  std::optional<std::uint64_t> size;  // bytes; empty: default_size() per target
  std::optional<int> threads;         // bandwidth threads; empty: all initiator CPUs
  int repeat = 5;                     // rounds over the targets; a figure is their median
  bool loaded = false;                // also run the loaded-latency sweep
  bool latency = true;
  bool bandwidth = true;
};

/// Fills the defaults of `config` from the topology and checks it; throws
/// BenchConfigError with a message naming the bad value.
BenchConfig resolve_config(const Topology& topology, BenchConfig config);

/// One point of the loaded-latency curve.
struct LoadedPoint {
  std::optional<std::uint64_t> delay;  // injection delay (spin iterations); empty = no load
  double bandwidth_mbps = 0;           // load threads' read bandwidth during the chase
  double latency_ns = 0;               // chase ns per load at that load
};

struct PairResult {
  unsigned initiator = 0;
  unsigned target = 0;
  std::uint64_t size_bytes = 0;
  int threads = 0;
  bool huge_pages = false;  // every buffer of this pair was backed by THP
  double on_target = 0;     // fraction of the buffer's pages on `target` (move_pages query)
  std::optional<double> latency_ns;
  std::optional<double> read_mbps, write_mbps, copy_mbps;
  std::vector<LoadedPoint> loaded;
};

struct BenchReport {
  std::vector<unsigned> initiators;
  std::vector<unsigned> targets;
  std::vector<PairResult> pairs;  // any subset of initiators x targets, any order
  int repeat = 0;
  std::vector<std::string> warnings;  // figures to read with care (size_warning())
};

/// rows = initiators, columns = targets; nullopt where no pair (or no figure).
using Matrix = std::vector<std::vector<std::optional<double>>>;
Matrix assemble_matrix(const std::vector<unsigned>& initiators,
                       const std::vector<unsigned>& targets, const std::vector<PairResult>& pairs,
                       const std::function<std::optional<double>(const PairResult&)>& figure);

/// HMAT figure of a pair as `tierctl topo` shows it (perf_for), nullopt if none.
enum class HmatFigure { read_latency, write_latency, read_bandwidth, write_bandwidth };
Matrix hmat_matrix(const Topology& topology, const std::vector<unsigned>& initiators,
                   const std::vector<unsigned>& targets, HmatFigure figure);

/// The documented JSON document (docs/bench.md).
boost::json::value to_json(const BenchReport& report, const Topology& topology);

/// Matrices with the HMAT figures side by side, for humans.
std::string render_text(const BenchReport& report, const Topology& topology);

/// The order round `round` (0-based, of `rounds`) measures `count` targets
/// in: every target once, starting at target round * count / rounds and
/// wrapping around, so each target is measured early in some rounds and late
/// in others.
std::vector<std::size_t> round_order(std::size_t count, int round, int rounds);

/// Measures every pair of the resolved config: per initiator, a buffer on
/// every target at once and `repeat` rounds over them (round_order); each
/// figure is the median of its rounds. `progress` (may be empty)
/// receives one line per step for a human watching stderr.
BenchReport run_bench(const Topology& topology, const BenchConfig& resolved,
                      const std::function<void(const std::string&)>& progress = {});

/// Thrown by write_plot() when gnuplot is not installed.
struct PlotError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Heat maps of the latency and bandwidth matrices into `png_path` via gnuplot.
void write_plot(const BenchReport& report, const std::string& png_path);

}  // namespace tier::bench
