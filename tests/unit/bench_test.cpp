// tierctl bench: size parsing, the chase permutation, matrix/JSON layout, a
// quick live run on this machine and the CLI's exit codes and JSON keys.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <functional>
#include <set>

#include "test_support.hpp"
#include "tier/bench/bench.hpp"

namespace tier::bench {
namespace {

TEST(BenchParseSize, AcceptsBinarySuffixes) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("64K"), 64u << 10);
  EXPECT_EQ(parse_size("64M"), 64u << 20);
  EXPECT_EQ(parse_size("64m"), 64u << 20);
  EXPECT_EQ(parse_size("1G"), 1ull << 30);
  EXPECT_EQ(parse_size("1GiB"), 1ull << 30);
  EXPECT_EQ(parse_size("2T"), 2ull << 40);
  EXPECT_EQ(parse_size("16MiB"), 16u << 20);
}

TEST(BenchParseSize, RejectsGarbage) {
  // The value grammar's sizes: no "B", no "KB" (1000 or 1024?).
  for (const char* bad : {"", "12x", "M", "-1", "1.5G", "1 G", "1GG", "64MX", "512B", "64KB",
                          "99999999999999999999", "99999999999T"}) {
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
  }
}

TEST(BenchPermutation, IsOneCycleThroughEverySlot) {
  for (std::size_t n : {1u, 2u, 3u, 17u, 1000u, 65536u}) {
    auto next = cyclic_permutation(n, 42 + n);
    ASSERT_EQ(next.size(), n);
    std::set<std::uint32_t> values(next.begin(), next.end());
    EXPECT_EQ(values.size(), n) << "not a permutation, n=" << n;
    std::vector<bool> seen(n, false);
    std::uint32_t slot = 0;
    std::size_t steps = 0;
    do {
      ASSERT_FALSE(seen[slot]) << "short cycle, n=" << n;
      seen[slot] = true;
      slot = next[slot];
      ++steps;
    } while (slot != 0);
    EXPECT_EQ(steps, n);
    if (n > 1) {
      for (std::size_t i = 0; i < n; ++i) EXPECT_NE(next[i], i);
    }
  }
}

TEST(BenchPermutation, DependsOnSeed) {
  EXPECT_NE(cyclic_permutation(1000, 1), cyclic_permutation(1000, 2));
  EXPECT_EQ(cyclic_permutation(1000, 7), cyclic_permutation(1000, 7));
}

TEST(BenchRounds, EveryTargetOncePerRoundAtEveryPositionOverTheRounds) {
  // As many rounds as targets: each target is measured first in one round,
  // last in another (a Latin square), so a drift cannot favour any of them.
  const std::size_t targets = 4;
  std::vector<std::set<std::size_t>> positions(targets);
  for (int round = 0; round < 4; ++round) {
    auto order = round_order(targets, round, 4);
    ASSERT_EQ(order.size(), targets);
    EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), targets) << round;
    for (std::size_t k = 0; k < targets; ++k) positions[order[k]].insert(k);
  }
  for (std::size_t t = 0; t < targets; ++t) EXPECT_EQ(positions[t].size(), targets) << t;
}

TEST(BenchRounds, FewerRoundsStartAtTargetsSpreadOverTheOrder) {
  EXPECT_EQ(round_order(4, 0, 1), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(round_order(4, 0, 2), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(round_order(4, 1, 2), (std::vector<std::size_t>{2, 3, 0, 1}));
  EXPECT_EQ(round_order(6, 2, 3), (std::vector<std::size_t>{4, 5, 0, 1, 2, 3}));
  EXPECT_TRUE(round_order(0, 0, 3).empty());
}

TEST(BenchDefaultSize, LargerOfFloorAndLlcCappedByFreeMemory) {
  EXPECT_EQ(default_size(32u << 20, std::nullopt), 256ull << 20);
  EXPECT_EQ(default_size(64u << 20, std::nullopt), 512ull << 20);
  EXPECT_EQ(default_size(32u << 20, 400ull << 20), 100ull << 20);
  EXPECT_EQ(default_size(0, 1024), kMinSizeBytes);
}

Topology two_node_topology() {
  TopologyData data;
  Node n0;
  n0.id = 0;
  n0.cpus = CpuList({0, 1});
  n0.memory_total_bytes = 8ull << 30;
  n0.memory_free_bytes = 4ull << 30;
  Node n2;
  n2.id = 2;
  n2.memory_total_bytes = 4ull << 30;
  Node n3;  // no memory, no CPUs
  n3.id = 3;
  data.nodes = {n0, n2, n3};
  NodePerf perf;
  perf.initiator = 0;
  perf.target = 2;
  perf.read_latency_ns = 250;
  perf.read_bandwidth_mbps = 20000;
  data.perf = {perf};
  return Topology(data);
}

// A buffer that fits in the cache measures the cache: bench says so, with
// both sizes and the size that would measure memory.
TEST(BenchSizeWarning, OnlyBelowTheLastLevelCache) {
  const std::uint64_t llc = 32u << 20;
  const std::string warning = size_warning(16u << 20, llc);
  EXPECT_NE(warning.find("16777216 bytes"), std::string::npos) << warning;
  EXPECT_NE(warning.find("last-level cache (33554432 bytes)"), std::string::npos) << warning;
  EXPECT_NE(warning.find("268435456 bytes (8 x LLC)"), std::string::npos) << warning;
  EXPECT_EQ(size_warning(llc, llc), "");
  EXPECT_EQ(size_warning(1u << 30, llc), "");
  EXPECT_EQ(size_warning(1u << 20, 0), "");  // LLC unknown: no guess
}

TEST(BenchConfig, DefaultsToCpuNodesAndMemoryNodes) {
  auto config = resolve_config(two_node_topology(), {});
  EXPECT_EQ(config.initiators, std::vector<unsigned>{0});
  EXPECT_EQ(config.targets, (std::vector<unsigned>{0, 2}));
}

TEST(BenchConfig, RejectsBadInput) {
  const Topology topology = two_node_topology();
  auto with = [](auto change) {
    BenchConfig config;
    change(config);
    return config;
  };
  EXPECT_THROW(resolve_config(topology, with([](auto& c) { c.targets = {9}; })), BenchConfigError);
  EXPECT_THROW(resolve_config(topology, with([](auto& c) { c.initiators = {2}; })),
               BenchConfigError);
  EXPECT_THROW(resolve_config(topology, with([](auto& c) { c.targets = {3}; })), BenchConfigError);
  EXPECT_THROW(resolve_config(topology, with([](auto& c) { c.size = 4096; })), BenchConfigError);
  EXPECT_THROW(resolve_config(topology, with([](auto& c) { c.size = 5ull << 30; })),
               BenchConfigError);
  EXPECT_THROW(resolve_config(topology, with([](auto& c) { c.threads = 0; })), BenchConfigError);
  EXPECT_THROW(resolve_config(topology, with([](auto& c) { c.repeat = 0; })), BenchConfigError);
}

TEST(BenchMatrix, RowsAreInitiatorsColumnsTargetsWithNullHoles) {
  PairResult a;
  a.initiator = 1;
  a.target = 2;
  a.latency_ns = 120;
  PairResult b;
  b.initiator = 0;
  b.target = 3;
  b.latency_ns = 300;
  auto m =
      assemble_matrix({0, 1}, {2, 3}, {a, b}, [](const PairResult& p) { return p.latency_ns; });
  ASSERT_EQ(m.size(), 2u);
  ASSERT_EQ(m[0].size(), 2u);
  EXPECT_FALSE(m[0][0]);
  EXPECT_EQ(m[0][1], 300.0);
  EXPECT_EQ(m[1][0], 120.0);
  EXPECT_FALSE(m[1][1]);
}

TEST(BenchJson, DocumentedLayoutWithNullsAndHmat) {
  BenchReport report;
  report.initiators = {0};
  report.targets = {0, 2};
  report.repeat = 3;
  PairResult p;
  p.initiator = 0;
  p.target = 2;
  p.size_bytes = 64u << 20;
  p.threads = 2;
  p.huge_pages = true;
  p.latency_ns = 251.5;
  p.read_mbps = 1000;
  p.write_mbps = 900;
  p.copy_mbps = 800;
  p.loaded = {{std::nullopt, 0, 250}, {0, 5000, 400}};
  report.pairs = {p};
  auto doc = to_json(report, two_node_topology()).as_object();
  EXPECT_EQ(doc.at("initiators"), boost::json::parse("[0]"));
  EXPECT_EQ(doc.at("targets"), boost::json::parse("[0,2]"));
  const auto& lat = doc.at("latency_ns").as_array();
  ASSERT_EQ(lat.size(), 1u);
  EXPECT_TRUE(lat[0].as_array()[0].is_null());
  EXPECT_DOUBLE_EQ(lat[0].as_array()[1].to_number<double>(), 251.5);
  for (const char* kind : {"read", "write", "copy"}) {
    const auto& m = doc.at("bandwidth_mbps").at(kind).as_array();
    EXPECT_TRUE(m[0].as_array()[0].is_null()) << kind;
    EXPECT_GT(m[0].as_array()[1].to_number<double>(), 0) << kind;
  }
  const auto& hmat = doc.at("hmat").as_object();
  EXPECT_TRUE(hmat.at("read_latency_ns").as_array()[0].as_array()[0].is_null());
  EXPECT_DOUBLE_EQ(hmat.at("read_latency_ns").as_array()[0].as_array()[1].to_number<double>(), 250);
  EXPECT_TRUE(hmat.at("write_latency_ns").as_array()[0].as_array()[1].is_null());
  EXPECT_EQ(doc.at("size_bytes").to_number<std::uint64_t>(), 64u << 20);
  EXPECT_EQ(doc.at("threads").to_number<int>(), 2);
  EXPECT_TRUE(doc.at("huge_pages").as_bool());
  const auto& loaded = doc.at("loaded").as_array();
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].at("target").to_number<int>(), 2);
  const auto& points = loaded[0].at("points").as_array();
  ASSERT_EQ(points.size(), 2u);
  EXPECT_TRUE(points[0].at("delay").is_null());
  EXPECT_EQ(points[1].at("delay").to_number<int>(), 0);

  report.pairs[0].loaded.clear();
  EXPECT_FALSE(to_json(report, two_node_topology()).as_object().contains("loaded"));
}

TEST(BenchText, ShowsHmatSideBySide) {
  BenchReport report;
  report.initiators = {0};
  report.targets = {0, 2};
  report.repeat = 1;
  PairResult p;
  p.initiator = 0;
  p.target = 2;
  p.latency_ns = 251.5;
  report.pairs = {p};
  const std::string text = render_text(report, two_node_topology());
  EXPECT_NE(text.find("251.5 [250]"), std::string::npos) << text;
  EXPECT_NE(text.find("- [-]"), std::string::npos) << text;
}

// Live: the real kernels on this machine's node(s), small and quick.

// The first initiator and target of this machine, `size` bytes, `repeat`
// rounds; `shape` sets the rest before the config is resolved.
BenchReport run_one_pair(std::uint64_t size, int repeat,
                         const std::function<void(BenchConfig&)>& shape = {}) {
  const Topology topology = load_topology();
  BenchConfig config;
  config.size = size;
  config.repeat = repeat;
  if (shape) shape(config);
  config = resolve_config(topology, config);
  config.initiators.resize(1);
  config.targets.resize(1);
  return run_bench(topology, config);
}

TEST(BenchLive, SmallRunGivesSaneFigures) {
  const BenchReport report = run_one_pair(32u << 20, 1);
  ASSERT_EQ(report.pairs.size(), 1u);
  const PairResult& p = report.pairs[0];
  // Outcomes, not speeds (how fast is for benchmarks, and a busy runner is
  // slow): every figure measured, positive and finite, on the target's pages.
  ASSERT_TRUE(p.latency_ns);
  EXPECT_GT(*p.latency_ns, 0);
  EXPECT_TRUE(std::isfinite(*p.latency_ns));
  for (auto bw : {p.read_mbps, p.write_mbps, p.copy_mbps}) {
    ASSERT_TRUE(bw);
    EXPECT_GT(*bw, 0);
    EXPECT_TRUE(std::isfinite(*bw));
  }
  EXPECT_DOUBLE_EQ(p.on_target, 1.0);
  EXPECT_TRUE(p.loaded.empty());
}

// Several rounds of every measurement: the chase must still follow an
// intact chain after earlier rounds (the write and copy kernels overwrite
// the buffer, so bandwidth comes last; a chase after them crashes).
TEST(BenchLive, SeveralRoundsOfEveryMeasurementOnOneBuffer) {
  const BenchReport report = run_one_pair(4u << 20, 3, [](BenchConfig& c) { c.loaded = true; });
  ASSERT_EQ(report.pairs.size(), 1u);
  const PairResult& p = report.pairs[0];
  EXPECT_EQ(report.repeat, 3);
  ASSERT_TRUE(p.latency_ns);
  EXPECT_GT(*p.latency_ns, 0);
  ASSERT_TRUE(p.copy_mbps);
  EXPECT_GT(*p.copy_mbps, 0);
  ASSERT_FALSE(p.loaded.empty());
  for (const auto& point : p.loaded) EXPECT_GT(point.latency_ns, 0);
}

TEST(BenchLive, LoadedSweepStartsIdleAndEndsAtFullLoad) {
  const BenchReport report = run_one_pair(8u << 20, 1, [](BenchConfig& c) {
    c.loaded = true;
    c.latency = false;
    c.bandwidth = false;
  });
  const PairResult& p = report.pairs.at(0);
  ASSERT_FALSE(p.loaded.empty());
  EXPECT_FALSE(p.loaded.front().delay);  // the no-load point comes first
  for (const auto& point : p.loaded) {
    EXPECT_GT(point.latency_ns, 0);
    EXPECT_TRUE(std::isfinite(point.latency_ns));
  }
  if (p.threads > 1) {
    EXPECT_EQ(p.loaded.back().delay, 0u);
    EXPECT_GT(p.loaded.back().bandwidth_mbps, 0);  // the loaders ran
  }
}

// CLI: the real tierctl binary.
const std::string kTierctl = TIER_BIN_DIR "/tierctl";

TEST(BenchCli, JsonHasTheDocumentedKeys) {
  auto result = test::run_command({kTierctl, "bench", "--size", "16M", "--repeat", "1", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto doc = boost::json::parse(result.out).as_object();
  for (const char* key : {"initiators", "targets", "latency_ns", "bandwidth_mbps", "hmat",
                          "size_bytes", "threads", "huge_pages"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  for (const char* key : {"read", "write", "copy"}) {
    EXPECT_TRUE(doc.at("bandwidth_mbps").as_object().contains(key)) << key;
  }
  EXPECT_EQ(doc.at("size_bytes").to_number<std::uint64_t>(), 16u << 20);
  EXPECT_EQ(doc.at("latency_ns").as_array().size(), doc.at("initiators").as_array().size());
}

TEST(BenchCli, WarnsWhenTheBufferFitsInTheCache) {
  const std::uint64_t llc = llc_bytes(SysRoot("/"));
  if (llc <= kMinSizeBytes) GTEST_SKIP() << "LLC " << llc << " bytes: 1M does not fit in it";
  auto result = test::run_command({kTierctl, "bench", "--size", "1M", "--repeat", "1",
                                   "--initiator", "0", "--target", "0", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("tierctl: warning: the buffer (1048576 bytes) fits in the last-level "
                            "cache"),
            std::string::npos)
      << result.err;
  const auto doc = boost::json::parse(result.out).as_object();
  ASSERT_EQ(doc.at("warnings").as_array().size(), 1u);
  EXPECT_EQ(doc.at("warnings").as_array()[0].as_string(), size_warning(1u << 20, llc));
  // A buffer as large as the cache: no warning.
  auto roomy = test::run_command({kTierctl, "bench", "--size", std::to_string(llc), "--repeat", "1",
                                  "--initiator", "0", "--target", "0", "--json"});
  ASSERT_EQ(roomy.exit_code, 0) << roomy.err;
  EXPECT_TRUE(boost::json::parse(roomy.out).at("warnings").as_array().empty()) << roomy.err;
}

TEST(BenchCli, BadInputExitsWithUsage) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--target", "9"},
                                                                {"--initiator", "9"},
                                                                {"--size", "12x"},
                                                                {"--size", "1K"},
                                                                {"--threads", "0"},
                                                                {"--threads", "-3"},
                                                                {"--repeat", "0"}}) {
    std::vector<std::string> argv{kTierctl, "bench"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = test::run_command(argv);
    EXPECT_EQ(result.exit_code, 2) << args[0] << " " << args[1] << ": " << result.err;
    EXPECT_FALSE(result.err.empty());
  }
}

TEST(BenchCli, PlotWritesAPng) {
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot not installed";
  test::TempDir dir("tier-bench-plot");
  const std::string png = (dir.path() / "bench.png").string();
  auto result = test::run_command(
      {kTierctl, "bench", "--size", "8M", "--repeat", "1", "--json", "--plot", png});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string bytes = test::read_text_file(png);
  ASSERT_GT(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

}  // namespace
}  // namespace tier::bench
