// The metrics exporter end to end: known values fed through the typed update
// API come back, exactly, from a scrape over real HTTP; promtool accepts the
// scrape; bind failures are MetricsErrors naming the address.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include "http_get.hpp"
#include "metrics/cumulative_counter.hpp"
#include "metrics/metrics.hpp"
#include "test_support.hpp"
#include "tier/version.hpp"

namespace tier::test {
namespace {

using ::testing::HasSubstr;
using tierd::ListenAddress;
using tierd::Metrics;
using tierd::MetricsError;
using tierd::parse_listen_address;

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// ---- listen address -------------------------------------------------------

TEST(ListenAddress, ParsesIpv4Ipv6AndOff) {
  EXPECT_EQ(parse_listen_address("off"), std::nullopt);
  EXPECT_EQ(parse_listen_address("127.0.0.1:9464"), (ListenAddress{"127.0.0.1", 9464}));
  EXPECT_EQ(parse_listen_address("0.0.0.0:0"), (ListenAddress{"0.0.0.0", 0}));
  EXPECT_EQ(parse_listen_address("[::1]:65535"), (ListenAddress{"::1", 65535}));
  EXPECT_EQ(parse_listen_address("[::1]:9464")->to_string(), "[::1]:9464");
  EXPECT_EQ(parse_listen_address(tierd::kDefaultMetricsListen)->to_string(), "127.0.0.1:9464");
}

TEST(ListenAddress, RejectsWithTheReason) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "empty"},
      {"127.0.0.1", "missing ':PORT'"},
      {"127.0.0.1:", "missing port"},
      {":9464", "missing host"},
      {"127.0.0.1:65536", "out of range"},
      {"127.0.0.1:-1", "not a number"},
      {"127.0.0.1:94x", "not a number"},
      {"localhost:9464", "not a numeric IPv4 address"},
      {"999.1.1.1:9464", "not a numeric IPv4 address"},
      {"::1:9464", "need brackets"},
      {"[::1]", "missing ':PORT'"},
      {"[::1:9464", "without ']'"},
      {"[nope]:9464", "not a numeric IPv6 address"},
      {"Off", "missing ':PORT'"},  // only lowercase "off" disables
  };
  for (const auto& [text, reason] : cases) {
    try {
      parse_listen_address(text);
      ADD_FAILURE() << "'" << text << "' was accepted";
    } catch (const tierd::ListenAddressError& e) {
      EXPECT_THAT(e.what(), HasSubstr(reason)) << text;
      EXPECT_THAT(e.what(), HasSubstr("'" + text + "'")) << "the error names the input";
    }
  }
}

// ---- CumulativeCounter ----------------------------------------------------

TEST(CumulativeCounter, CountsGrowthAndRestartsFromZero) {
  prometheus::Registry registry;
  auto& family = prometheus::BuildCounter().Name("t_total").Help("t").Register(registry);
  prometheus::Counter& since_boot = family.Add({{"c", "baseline"}});
  prometheus::Counter& ours = family.Add({{"c", "count"}});
  tierd::CumulativeCounter baseline(since_boot, tierd::CumulativeCounter::First::baseline);
  tierd::CumulativeCounter count(ours, tierd::CumulativeCounter::First::count);
  for (std::uint64_t total : {100u, 130u, 130u, 20u}) {
    baseline.observe(total);
    count.observe(total);
  }
  // baseline: 100 is history; +30, +0, then a restart whose 20 is all new.
  EXPECT_EQ(since_boot.Value(), 50);
  EXPECT_EQ(ours.Value(), 150);
}

// ---- scrapes --------------------------------------------------------------

using tier::test::HttpResponse;

HttpResponse http_get(const ListenAddress& address, const std::string& path) {
  return tier::test::http_get(address.host, address.port, path);
}

// "name{labels}" → value, for every sample line of an exposition.
std::map<std::string, double> series_of(const std::string& exposition) {
  std::map<std::string, double> series;
  std::istringstream in(exposition);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    series[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return series;
}

// "name" → type, from the # TYPE lines.
std::map<std::string, std::string> types_of(const std::string& exposition) {
  std::map<std::string, std::string> types;
  std::istringstream in(exposition);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string hash, keyword, name, type;
    if (words >> hash >> keyword >> name >> type && hash == "#" && keyword == "TYPE") {
      types[name] = type;
    }
  }
  return types;
}

// Two nodes: DRAM with CPUs on tier 0, CXL memory on tier 1.
tier::Topology two_tier_topology() {
  tier::TopologyData data;
  data.nodes.resize(2);
  data.nodes[0].id = 0;
  data.nodes[0].kind = tier::MemoryKind::dram;
  data.nodes[0].tier = 0;
  data.nodes[1].id = 1;
  data.nodes[1].kind = tier::MemoryKind::cxl;
  data.nodes[1].tier = 1;
  return tier::Topology(std::move(data));
}

tier::NodeMemory node_memory(unsigned id, std::uint64_t total, std::uint64_t free,
                             std::uint64_t used) {
  tier::NodeMemory memory;
  memory.node = id;
  memory.total_bytes = total;
  memory.free_bytes = free;
  memory.used_bytes = used;
  return memory;
}

tier::MemorySnapshot two_node_snapshot() {
  tier::MemorySnapshot snapshot;
  snapshot.nodes.resize(2);
  snapshot.nodes[0] = node_memory(0, 16 * kGiB, 6 * kGiB, 10 * kGiB);
  snapshot.nodes[1] = node_memory(1, 64 * kGiB, 60 * kGiB, 4 * kGiB);
  return snapshot;
}

// Feeds one known tick of everything the daemon reports.
void feed_known_tick(Metrics& metrics) {
  const tier::Topology topology = two_tier_topology();
  metrics.update_nodes(topology, two_node_snapshot());
  metrics.record_topology_change();  // e.g. a CXL node's memory offlined,
  metrics.record_topology_change();  // and back

  // Baseline first (history since boot), then growth.
  metrics.update_kernel_counters({{"pgpromote_success", 1000}, {"pgdemote_kswapd", 500}});
  metrics.update_kernel_counters(
      {{"pgpromote_success", 1250}, {"pgdemote_kswapd", 540}, {"pgdemote_direct", 7}});

  tier::MoveReport promote;
  promote.pages.moved = 300;
  promote.bytes.moved = std::uint64_t{300} * 4096;
  promote.pages.busy = 4;
  promote.pages.no_memory = 2;
  promote.pages.skipped = 50;        // not attempted: not a failure
  promote.pages.against_policy = 7;  // kept by the process's own policy: not a failure
  metrics.record_migration(tierd::MigrationDirection::promote, promote);
  metrics.record_migration(tierd::MigrationDirection::promote, promote);
  tier::MoveReport demote;
  demote.pages.moved = 1;
  demote.bytes.moved = std::uint64_t{2} << 20;  // one 2 MiB huge page
  demote.pages.process_gone = 9;
  metrics.record_migration(tierd::MigrationDirection::demote, demote);

  metrics.update_heat_sources({{"bpf_faults", {.samples = 100, .drops = 1, .polls = 3}},
                               {"damon", {.samples = 40, .drops = 0, .polls = 3}}});
  metrics.update_heat_sources({{"bpf_faults", {.samples = 250, .drops = 4, .polls = 6}},
                               {"damon", {.samples = 40, .drops = 0, .polls = 6}}});

  metrics.observe_policy_tick(std::chrono::microseconds(300));
  metrics.observe_policy_tick(std::chrono::milliseconds(20));
  metrics.observe_policy_tick(std::chrono::seconds(3));

  metrics.update_workloads(topology, {{"redis", "online", {{0, 3 * kGiB}, {1, 1 * kGiB}}},
                                      {"batch", "offline", {{1, 8 * kGiB}}},
                                      {"idle", "offline", {}}});

  // Pools and suppression: running totals of actions and trigger epochs, the
  // pool that went away between the two epochs disappears.
  tierd::SuppressionFigures suppression{true, 2, 4, 0.8, 0.5, 1, {{"online_cpu", 1}}};
  metrics.update_pools({{"shared", 6, 3}, {"numa:1", 2, 0}}, suppression);
  suppression.offline_cpus = 1;
  suppression.actions = 3;
  suppression.trigger_epochs = {{"online_cpu", 2}, {"fast_free", 1}};
  metrics.update_pools({{"shared", 5, 4}, {"exclusive:1 pid:7", 1, 1}}, suppression);
}

class MetricsExporter : public ::testing::Test {
 protected:
  Metrics metrics_{ListenAddress{"127.0.0.1", 0}};
};

TEST_F(MetricsExporter, ScrapeReturnsTheFedValuesExactly) {
  ASSERT_TRUE(metrics_.address());
  ASSERT_NE(metrics_.address()->port, 0) << "port 0 must be replaced by the bound port";
  feed_known_tick(metrics_);

  const HttpResponse response = http_get(*metrics_.address(), "/metrics");
  ASSERT_THAT(response.status_line, HasSubstr("200")) << response.status_line;
  const auto series = series_of(response.body);
  const double gib = static_cast<double>(kGiB);
  const std::map<std::string, double> expected{
      {R"(tier_node_memory_bytes{kind="dram",node="0",state="total",tier="0"})", 16 * gib},
      {R"(tier_node_memory_bytes{kind="dram",node="0",state="free",tier="0"})", 6 * gib},
      {R"(tier_node_memory_bytes{kind="dram",node="0",state="used",tier="0"})", 10 * gib},
      {R"(tier_node_memory_bytes{kind="cxl",node="1",state="total",tier="1"})", 64 * gib},
      {R"(tier_node_memory_bytes{kind="cxl",node="1",state="free",tier="1"})", 60 * gib},
      {R"(tier_node_memory_bytes{kind="cxl",node="1",state="used",tier="1"})", 4 * gib},
      {"tier_kernel_pages_promoted_total", 250},
      {R"(tier_kernel_pages_demoted_total{mode="kswapd"})", 40},
      {R"(tier_kernel_pages_demoted_total{mode="direct"})", 0},  // first seen: its baseline
      {R"(tier_pages_migrated_total{direction="promote"})", 600},
      {R"(tier_pages_migrated_total{direction="demote"})", 1},
      {R"(tier_bytes_migrated_total{direction="promote"})", 600 * 4096},
      {R"(tier_bytes_migrated_total{direction="demote"})", 2 << 20},
      {R"(tier_migration_failures_total{direction="promote",reason="busy"})", 8},
      {R"(tier_migration_failures_total{direction="promote",reason="no_memory"})", 4},
      {R"(tier_migration_failures_total{direction="promote",reason="process_gone"})", 0},
      {R"(tier_migration_failures_total{direction="demote",reason="process_gone"})", 9},
      {R"(tier_migration_failures_total{direction="demote",reason="permission"})", 0},
      {R"(tier_pages_kept_by_process_policy_total{direction="promote"})", 14},
      {R"(tier_pages_kept_by_process_policy_total{direction="demote"})", 0},
      {R"(tier_heat_samples_total{source="bpf_faults"})", 250},
      {R"(tier_heat_drops_total{source="bpf_faults"})", 4},
      {R"(tier_heat_samples_total{source="damon"})", 40},
      {R"(tier_heat_drops_total{source="damon"})", 0},
      {"tier_topology_changes_total", 2},
      {"tier_policy_tick_seconds_count", 3},
      {"tier_policy_tick_seconds_sum", 3.0203},
      {R"(tier_policy_tick_seconds_bucket{le="0.0005"})", 1},
      {R"(tier_policy_tick_seconds_bucket{le="0.025"})", 2},
      {R"(tier_policy_tick_seconds_bucket{le="2.5"})", 2},
      {R"(tier_policy_tick_seconds_bucket{le="5"})", 3},
      {R"(tier_policy_tick_seconds_bucket{le="+Inf"})", 3},
      {R"(tier_workload_fast_tier_share{class="online",workload="redis"})", 0.75},
      {R"(tier_workload_fast_tier_share{class="offline",workload="batch"})", 0},
      {R"(tier_workload_resident_bytes{node="0",workload="redis"})", 3 * gib},
      {R"(tier_workload_resident_bytes{node="1",workload="redis"})", 1 * gib},
      {R"(tier_workload_resident_bytes{node="1",workload="batch"})", 8 * gib},
      {R"(tier_pool_cpus{pool="shared"})", 5},
      {R"(tier_pool_members{pool="shared"})", 4},
      {R"(tier_pool_cpus{pool="exclusive:1 pid:7"})", 1},
      {"tier_suppression_active", 1},
      {R"(tier_suppression_offline_cpus{state="allowed"})", 1},
      {R"(tier_suppression_offline_cpus{state="pool"})", 4},
      {"tier_suppression_online_cpu_use", 0.8},
      {"tier_suppression_offline_budget_factor", 0.5},
      {"tier_suppression_actions_total", 3},
      {R"(tier_suppression_trigger_epochs_total{trigger="online_cpu"})", 2},
      {R"(tier_suppression_trigger_epochs_total{trigger="fast_free"})", 1},
      {R"(tier_build_info{version=")" + std::string(tier::kVersion) + R"("})", 1},
      {"tier_up", 1},
  };
  EXPECT_EQ(series.count(R"(tier_pool_cpus{pool="numa:1"})"), 0u) << "a pool that went away";
  for (const auto& [name, value] : expected) {
    auto it = series.find(name);
    ASSERT_NE(it, series.end()) << name << " missing from the scrape:\n" << response.body;
    EXPECT_DOUBLE_EQ(it->second, value) << name;
  }
  // A workload without resident memory has no share (undefined, not 0).
  for (const auto& [name, value] : series) {
    EXPECT_THAT(name, ::testing::Not(HasSubstr(R"(workload="idle")"))) << name;
  }
  // Every tier_ family, and only these, with its Prometheus type. The others
  // are prometheus-cpp's own exposer_* self-metrics, which it always adds.
  const std::map<std::string, std::string> expected_types{
      {"tier_node_memory_bytes", "gauge"},
      {"tier_kernel_pages_promoted_total", "counter"},
      {"tier_kernel_pages_demoted_total", "counter"},
      {"tier_pages_migrated_total", "counter"},
      {"tier_bytes_migrated_total", "counter"},
      {"tier_migration_failures_total", "counter"},
      {"tier_pages_kept_by_process_policy_total", "counter"},
      {"tier_heat_samples_total", "counter"},
      {"tier_heat_drops_total", "counter"},
      {"tier_topology_changes_total", "counter"},
      {"tier_policy_tick_seconds", "histogram"},
      {"tier_workload_fast_tier_share", "gauge"},
      {"tier_workload_resident_bytes", "gauge"},
      {"tier_pool_cpus", "gauge"},
      {"tier_pool_members", "gauge"},
      {"tier_suppression_active", "gauge"},
      {"tier_suppression_offline_cpus", "gauge"},
      {"tier_suppression_online_cpu_use", "gauge"},
      {"tier_suppression_offline_budget_factor", "gauge"},
      {"tier_suppression_actions_total", "counter"},
      {"tier_suppression_trigger_epochs_total", "counter"},
      {"tier_build_info", "gauge"},
      {"tier_up", "gauge"},
  };
  std::map<std::string, std::string> tier_types;
  for (const auto& [name, type] : types_of(response.body)) {
    if (name.starts_with("tier_")) {
      tier_types[name] = type;
    } else {
      EXPECT_TRUE(name.starts_with("exposer_")) << name;
    }
  }
  EXPECT_EQ(tier_types, expected_types);
  // The HTTP body carries exactly what render() does (plus the exposer_ series).
  std::map<std::string, double> tier_series;
  for (const auto& [name, value] : series) {
    if (name.starts_with("tier_")) tier_series[name] = value;
  }
  EXPECT_EQ(series_of(metrics_.render()), tier_series);
}

TEST_F(MetricsExporter, PromtoolAcceptsTheScrape) {
  const CommandResult which = run_command({"sh", "-c", "command -v promtool"});
  if (which.exit_code != 0) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus; scripts/install-deps.sh)";
  }
  feed_known_tick(metrics_);
  const HttpResponse response = http_get(*metrics_.address(), "/metrics");
  ASSERT_THAT(response.status_line, HasSubstr("200"));
  TempDir dir("tier-metrics");
  const fs::path scrape = dir.path() / "scrape.txt";
  write_text_file(scrape, response.body);
  // promtool reads the exposition on stdin; the temp path has no shell metacharacters.
  const CommandResult check =
      run_command({"sh", "-c", "promtool check metrics < '" + scrape.string() + "'"});
  EXPECT_EQ(check.exit_code, 0) << "promtool:\n"
                                << check.out << check.err << "\nscrape:\n"
                                << response.body;
}

TEST_F(MetricsExporter, GaugesOfVanishedWorkloadsAndNodesDisappear) {
  const tier::Topology topology = two_tier_topology();
  metrics_.update_nodes(topology, two_node_snapshot());
  metrics_.update_workloads(topology,
                            {{"redis", "online", {{0, kGiB}}}, {"gone", "offline", {{1, kGiB}}}});
  tier::MemorySnapshot one_node = two_node_snapshot();
  one_node.nodes.pop_back();
  metrics_.update_nodes(topology, one_node);
  metrics_.update_workloads(topology, {{"redis", "online", {{1, kGiB}}}});

  const auto series = series_of(http_get(*metrics_.address(), "/metrics").body);
  EXPECT_EQ(series.count(R"(tier_workload_resident_bytes{node="1",workload="gone"})"), 0u);
  EXPECT_EQ(series.count(R"(tier_workload_fast_tier_share{class="offline",workload="gone"})"), 0u);
  EXPECT_EQ(series.count(R"(tier_workload_resident_bytes{node="0",workload="redis"})"), 0u);
  EXPECT_EQ(series.at(R"(tier_workload_resident_bytes{node="1",workload="redis"})"), kGiB);
  EXPECT_EQ(series.at(R"(tier_workload_fast_tier_share{class="online",workload="redis"})"), 0);
  EXPECT_EQ(series.count(R"(tier_node_memory_bytes{kind="cxl",node="1",state="free",tier="1"})"),
            0u);
  EXPECT_EQ(series.at(R"(tier_node_memory_bytes{kind="dram",node="0",state="free",tier="0"})"),
            6 * kGiB);
}

TEST_F(MetricsExporter, NodeMissingFromTheTopologyIsLabelledUnknown) {
  tier::MemorySnapshot snapshot;
  snapshot.nodes.push_back(node_memory(7, kGiB, 0, 0));
  metrics_.update_nodes(two_tier_topology(), snapshot);
  const auto series = series_of(metrics_.render());
  EXPECT_EQ(
      series.at(R"(tier_node_memory_bytes{kind="unknown",node="7",state="total",tier="unknown"})"),
      kGiB);
}

TEST(MetricsOff, KernelCountersTheKernelLacksHaveNoSeries) {
  Metrics metrics(std::nullopt);
  // A kernel without memory tiering counters: only pgmigrate_* in vmstat.
  metrics.update_kernel_counters({{"pgmigrate_success", 10}});
  metrics.update_kernel_counters({{"pgmigrate_success", 20}});
  for (const auto& [name, value] : series_of(metrics.render())) {
    EXPECT_FALSE(name.starts_with("tier_kernel_")) << name << " = " << value;
  }
}

TEST(MetricsOff, RegistryWorksWithoutListening) {
  Metrics metrics(parse_listen_address("off"));
  EXPECT_FALSE(metrics.address());
  feed_known_tick(metrics);
  EXPECT_EQ(series_of(metrics.render()).at("tier_kernel_pages_promoted_total"), 250);
}

// ---- bind errors ----------------------------------------------------------

TEST(MetricsBind, PortInUseIsAnErrorNamingTheAddress) {
  // Hold a listening socket on a kernel-chosen port.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const ListenAddress taken{"127.0.0.1", ntohs(addr.sin_port)};
  try {
    Metrics metrics(taken);
    ADD_FAILURE() << "bound " << taken.to_string() << " although it is in use";
  } catch (const MetricsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot listen on " + taken.to_string() + ": " +
                                    std::strerror(EADDRINUSE)));
  }
  ::close(fd);
}

TEST(MetricsBind, AddressNotOnThisHostIsAnErrorNamingIt) {
  // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a real host.
  const ListenAddress foreign{"192.0.2.1", 9464};
  try {
    Metrics metrics(foreign);
    ADD_FAILURE() << "bound " << foreign.to_string();
  } catch (const MetricsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot listen on 192.0.2.1:9464: " +
                                    std::string(std::strerror(EADDRNOTAVAIL))));
  }
}

TEST(MetricsBind, Ipv6IsServedOrRefusedWithTheReason) {
  // Debian 12's civetweb has no IPv6; either way the outcome must be clear.
  try {
    Metrics metrics(ListenAddress{"::1", 0});
    EXPECT_NE(metrics.address()->port, 0);
  } catch (const MetricsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot listen on [::1]:0: "));
    EXPECT_THAT(e.what(), ::testing::AnyOf(HasSubstr("no IPv6 support"),
                                           HasSubstr(std::strerror(EADDRNOTAVAIL))));
  }
}

}  // namespace
}  // namespace tier::test
