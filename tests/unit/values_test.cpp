// The value grammar (tier/values/values.hpp), table by table: for every
// parser the empty, spaced, negative, huge, non-numeric, junk-suffixed and
// boundary texts, and the message each refusal prints (the flag, the text in
// quotes, the range in plain numbers); the ids checked against existing
// sets; the number and size renderings; the path checks on a scratch tree.
#include "tier/values/values.hpp"

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>

#include "test_support.hpp"
#include "tier/values/value_scan.h"

namespace tier::values {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr auto kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr auto kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr auto kI64Min = std::numeric_limits<std::int64_t>::min();

/// The what() of the ValueError `parse` throws, nullopt if it accepts. Any
/// other exception fails the test (it would reach the user unformatted).
std::optional<std::string> refusal(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const ValueError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

/// A refused text: the message starts with the flag and the quoted text and
/// holds `fragment`; no exponent, no six-zero decimals.
void expect_refused(std::string_view name, std::string_view text, std::string_view fragment,
                    const std::function<void()>& parse) {
  SCOPED_TRACE(std::string(name) + " '" + std::string(text) + "'");
  const auto message = refusal(parse);
  ASSERT_TRUE(message.has_value()) << "accepted";
  EXPECT_EQ(message->rfind(std::string(name) + " '" + std::string(text) + "': ", 0), 0u)
      << *message;
  EXPECT_NE(message->find(fragment), std::string::npos) << *message;
  EXPECT_EQ(message->find("e+"), std::string::npos) << *message;
  EXPECT_EQ(message->find("0.000000"), std::string::npos) << *message;
}

/// A text and, when accepted, what it means; `fragment` of the message else.
template <class T>
struct Case {
  const char* text;
  std::optional<T> value;
  const char* fragment = "";
};

template <class T, class Parse>
void run_table(std::string_view name, const std::vector<Case<T>>& table, Parse parse) {
  for (const auto& c : table) {
    if (c.value) {
      SCOPED_TRACE(std::string(name) + " '" + c.text + "'");
      T got{};
      EXPECT_NO_THROW(got = parse(c.text)) << c.text;
      EXPECT_EQ(got, *c.value) << c.text;
    } else {
      expect_refused(name, c.text, c.fragment, [&] { parse(c.text); });
    }
  }
}

// The texts every numeric parser refuses, with the fragment its message
// carries besides the range.
const char* const kNothing = "got nothing";
const char* const kSpaces = "without surrounding spaces";

TEST(ValueError, CarriesNameTextAndWhy) {
  const ValueError e("--to", "", "expected a NUMA node number, got nothing");
  EXPECT_STREQ(e.what(), "--to '': expected a NUMA node number, got nothing");
  EXPECT_EQ(e.name(), "--to");
  EXPECT_EQ(e.text(), "");
  EXPECT_EQ(e.why(), "expected a NUMA node number, got nothing");
  const std::invalid_argument& base = e;  // what tierctl maps to exit 2
  EXPECT_STREQ(base.what(), e.what());
}

TEST(ParseInteger, Table) {
  const char* range = "expected an integer from -5 to 64";
  run_table<std::int64_t>("--n",
                          {
                              {"0", 0},
                              {"-5", -5},
                              {"64", 64},
                              {"007", 7},
                              {"-0", 0},
                              {"", {}, kNothing},
                              {" 1", {}, kSpaces},
                              {"1\n", {}, kSpaces},
                              {"-6", {}, range},
                              {"65", {}, range},
                              {"99999999999999999999", {}, range},
                              {"-99999999999999999999", {}, range},
                              {"abc", {}, range},
                              {"12abc", {}, range},
                              {"1.5", {}, range},
                              {"0x10", {}, range},
                              {"+1", {}, range},
                              {"-", {}, range},
                              {"1 2", {}, range},
                          },
                          [](const char* t) { return parse_integer("--n", t, -5, 64); });
}

TEST(ParseInteger, NegativeRefusedWhenMinIsNotNegative) {
  expect_refused("daemon.epoch_ms", "-1", "expected an integer from 0 to 10",
                 [] { parse_integer("daemon.epoch_ms", "-1", 0, 10); });
}

TEST(ParseInteger, WholeInt64Range) {
  EXPECT_EQ(parse_integer("--n", "-9223372036854775808", kI64Min, kI64Max), kI64Min);
  EXPECT_EQ(parse_integer("--n", "9223372036854775807", kI64Min, kI64Max), kI64Max);
  // A bound nobody chose is not printed: "N or more".
  expect_refused("--n", "9223372036854775808", "expected an integer -9223372036854775808 or more",
                 [] { parse_integer("--n", "9223372036854775808", kI64Min, kI64Max); });
  expect_refused("--n", "-9223372036854775809", "or more",
                 [] { parse_integer("--n", "-9223372036854775809", kI64Min, kI64Max); });
}

TEST(ParseCount, Table) {
  const char* range = "expected an integer from 1 to 64";
  run_table<std::uint64_t>("--threads",
                           {
                               {"1", 1},
                               {"64", 64},
                               {"", {}, kNothing},
                               {"\t8", {}, kSpaces},
                               {"0", {}, range},
                               {"65", {}, range},
                               {"-1", {}, range},
                               {"99999999999999999999", {}, range},
                               {"x", {}, range},
                               {"4k", {}, range},
                               {"2.0", {}, range},
                           },
                           [](const char* t) { return parse_count("--threads", t, 1, 64); });
}

TEST(ParseCount, WholeUint64Range) {
  EXPECT_EQ(parse_count("--n", "18446744073709551615", 0, kU64Max), kU64Max);
  expect_refused("--n", "18446744073709551616", "expected an integer 0 or more",
                 [] { parse_count("--n", "18446744073709551616", 0, kU64Max); });
}

TEST(ParseDecimal, TableWithExclusiveMinimum) {
  const char* range = "expected a number above 0 and up to 100000";
  run_table<double>("--x",
                    {
                        {"0.25", 0.25},          {"2", 2.0},
                        {"100000", 100000.0},    {"100000.0", 100000.0},
                        {"0.000001", 0.000001},  {"", {}, kNothing},
                        {"1 ", {}, kSpaces},     {"0", {}, range},
                        {"0.0", {}, range},      {"-1", {}, range},
                        {"100000.5", {}, range}, {"99999999999999999999", {}, range},
                        {".5", {}, range},       {"5.", {}, range},
                        {"1e3", {}, range},      {"inf", {}, range},
                        {"nan", {}, range},      {"1,5", {}, range},
                        {"2x", {}, range},       {"0x10", {}, range},
                    },
                    [](const char* t) { return parse_decimal("--x", t, 0, 100000, true); });
}

TEST(ParseDecimal, NegativeRange) {
  EXPECT_EQ(parse_decimal("--x", "-1", -1, 1), -1.0);
  EXPECT_EQ(parse_decimal("--x", "-0.5", -1, 1), -0.5);
  expect_refused("--x", "-1.5", "expected a number from -1 to 1",
                 [] { parse_decimal("--x", "-1.5", -1, 1); });
  expect_refused("--x", "-", "expected a number from -1 to 1",
                 [] { parse_decimal("--x", "-", -1, 1); });
}

TEST(ParseDecimal, UnboundedTakesAnyPlainNumber) {
  EXPECT_EQ(parse_decimal("--param hot", "-12.5", -INFINITY, INFINITY), -12.5);
  expect_refused("--param hot", "1e3", "expected a number in plain notation",
                 [] { parse_decimal("--param hot", "1e3", -INFINITY, INFINITY); });
}

TEST(ParseDecimal, NoUpperBoundSaysSo) {
  // 1 followed by 400 zeros is past double's range: refused, not infinity.
  const std::string huge = "1" + std::string(400, '0');
  EXPECT_EQ(parse_decimal("--x", "1000000000000", 0, INFINITY), 1e12);
  expect_refused("--x", huge, "expected a number 0 or more",
                 [&] { parse_decimal("--x", huge, 0, INFINITY); });
  expect_refused("--x", "-1", "expected a number 0 or more",
                 [] { parse_decimal("--x", "-1", 0, INFINITY); });
}

TEST(ParseRatio, Table) {
  const char* range = "expected a number from 0 to 1";
  run_table<double>("--x",
                    {
                        {"0", 0.0},
                        {"1", 1.0},
                        {"0.9", 0.9},
                        {"1.0", 1.0},
                        {"", {}, kNothing},
                        {" 0.5", {}, kSpaces},
                        {"1.5", {}, range},
                        {"-0.1", {}, range},
                        {"1.0000001", {}, range},
                        {"99999999999999999999", {}, range},
                        {"abc", {}, range},
                        {"0.5x", {}, range},
                        {"50%", {}, range},
                    },
                    [](const char* t) { return parse_ratio("--x", t); });
}

TEST(ParseRate, Table) {
  const char* range = "expected a rate in MB/s above 0 and up to 1000000";
  run_table<double>("--rate",
                    {
                        {"0.5", 0.5},
                        {"1000000", 1'000'000.0},
                        {"", {}, kNothing},
                        {"0", {}, range},
                        {"-1", {}, range},
                        {"1000000.5", {}, range},
                        {"99999999999999999999", {}, range},
                        {"fast", {}, range},
                        {"100MB", {}, range},
                    },
                    [](const char* t) { return parse_rate_mbps("--rate", t); });
  expect_refused("--budget", "600", "expected a rate in MB/s above 0 and up to 500.5",
                 [] { parse_rate_mbps("--budget", "600", 500.5); });
}

TEST(ParseSize, Table) {
  const char* syntax = "expected a size in bytes with an optional K, M, G or T suffix, from 4K";
  run_table<std::uint64_t>("--size",
                           {
                               {"4096", 4096},
                               {"4K", 4096},
                               {"4k", 4096},
                               {"4KiB", 4096},
                               {"4kib", 4096},
                               {"16MiB", 16u << 20},
                               {"16m", 16u << 20},
                               {"2G", 2ull << 30},
                               {"2GiB", 2ull << 30},
                               {"1T", 1ull << 40},
                               {"1TiB", 1ull << 40},
                               {"1024G", 1ull << 40},
                               {"", {}, kNothing},
                               {" 4K", {}, kSpaces},
                               {"4K\n", {}, kSpaces},
                               {"4095", {}, "expected a size from 4K to 1T"},
                               {"1025G", {}, "expected a size from 4K to 1T"},
                               {"2T", {}, "expected a size from 4K to 1T"},
                               {"-1", {}, syntax},
                               {"99999999999999999999", {}, syntax},
                               {"99999999999T", {}, syntax},
                               {"4KB", {}, syntax},
                               {"4B", {}, syntax},
                               {"1.5G", {}, syntax},
                               {"K", {}, syntax},
                               {"iB", {}, syntax},
                               {"4iB", {}, syntax},
                               {"4 K", {}, syntax},
                               {"4KiBx", {}, syntax},
                               {"4P", {}, syntax},
                               {"0x1000", {}, syntax},
                           },
                           [](const char* t) { return parse_size("--size", t, 4096, 1ull << 40); });
}

TEST(ParseSize, NoUpperBoundSaysSo) {
  EXPECT_EQ(parse_size("--s", "16383T", 0, kU64Max), 16383ull << 40);
  expect_refused("--s", "x", "K, M, G or T suffix, 0 or more",
                 [] { parse_size("--s", "x", 0, kU64Max); });
}

TEST(ParseSize, ReadsWhatSizeTextWrites) {
  for (std::uint64_t bytes :
       {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{1536}, std::uint64_t{4096},
        std::uint64_t{5} << 20, std::uint64_t{3} << 30, std::uint64_t{1} << 50, kU64Max}) {
    EXPECT_EQ(parse_size("--s", size_text(bytes), 0, kU64Max), bytes) << size_text(bytes);
  }
}

TEST(ValueScan, ReadsOnlyItsRange) {
  // "64K" inside a longer buffer: the scanner stops at `end`.
  const char text[] = "64Kjunk";
  std::uint64_t v = 0;
  EXPECT_EQ(tier_scan_size(text, text + 3, &v), 0);
  EXPECT_EQ(v, 64u << 10);
  EXPECT_EQ(tier_scan_u64(text, text + 2, &v), 0);
  EXPECT_EQ(v, 64u);
  EXPECT_EQ(tier_scan_u64(text, text, &v), -1);
  EXPECT_EQ(tier_scan_size(text, text, &v), -1);
  EXPECT_EQ(tier_scan_u64(text, text + 3, &v), -1);
}

TEST(ParseDuration, UnitRequired) {
  const char* range = "expected a duration with ms, s, m or h (500ms, 2s, 5m) from 1ms to 1h";
  run_table<std::chrono::milliseconds>(
      "--timeout",
      {
          {"500ms", 500ms},
          {"1ms", 1ms},
          {"2s", 2s},
          {"5m", 5min},
          {"1h", 1h},
          {"60m", 1h},
          {"", {}, kNothing},
          {" 2s", {}, kSpaces},
          {"500", {}, range},
          {"0s", {}, range},
          {"0ms", {}, range},
          {"61m", {}, range},
          {"2h", {}, range},
          {"-1s", {}, range},
          {"1.5s", {}, range},
          {"1d", {}, range},
          {"5 s", {}, range},
          {"s", {}, range},
          {"2S", {}, range},
          {"99999999999999999999h", {}, range},
          {"9999999999999999h", {}, range},
      },
      [](const char* t) { return parse_duration("--timeout", t, 1ms, 1h, 0ms); });
}

TEST(ParseDuration, BareDigitsInTheFlagsUnit) {
  EXPECT_EQ(parse_duration("--duration-ms", "500", 1ms, 1min, 1ms), 500ms);
  EXPECT_EQ(parse_duration("--duration-ms", "2s", 1ms, 1min, 1ms), 2s);
  EXPECT_EQ(parse_duration("--every-s", "2", 1s, 1h, 1s), 2s);
  expect_refused("--duration-ms", "60001",
                 "expected milliseconds or a duration with ms, s, m or h from 1ms to 1m",
                 [] { parse_duration("--duration-ms", "60001", 1ms, 1min, 1ms); });
  expect_refused("--every-s", "0", "expected seconds or a duration",
                 [] { parse_duration("--every-s", "0", 1s, 1h, 1s); });
}

TEST(ParsePid, Table) {
  const char* range = "expected a process id from 1 to 4194304";
  run_table<pid_t>("--pid",
                   {
                       {"1", 1},
                       {"4194304", 4194304},
                       {"", {}, kNothing},
                       {"1 ", {}, kSpaces},
                       {"0", {}, range},
                       {"4194305", {}, range},
                       {"-1", {}, range},
                       {"99999999999999999999", {}, range},
                       {"self", {}, range},
                       {"12abc", {}, range},
                   },
                   [](const char* t) { return parse_pid("--pid", t); });
}

TEST(ParseAddressRange, Table) {
  const char* form = "expected START-END addresses (hex 0x... or decimal) with START below END";
  run_table<AddressRange>("--range",
                          {
                              {"0x1000-0x2000", AddressRange{0x1000, 0x2000}},
                              {"4096-8192", AddressRange{4096, 8192}},
                              {"0X10-0x1F", AddressRange{0x10, 0x1f}},
                              {"", {}, kNothing},
                              {" 0x1-0x2", {}, kSpaces},
                              {"0x1000-4096", {}, form},
                              {"0x2000-0x1000", {}, form},
                              {"0x1000", {}, form},
                              {"0x-0x10", {}, form},
                              {"0x1000-", {}, form},
                              {"-0x10", {}, form},
                              {"0xg-0x10", {}, form},
                              {"0x1 - 0x2", {}, form},
                              {"0x10000000000000000-0x1", {}, form},
                              {"0-99999999999999999999", {}, form},
                          },
                          [](const char* t) { return parse_address_range("--range", t); });
}

const CpuList kFour = CpuList({0, 1, 2, 3});

TEST(ParseId, AgainstExistingNodes) {
  const char* listed = "(nodes: 0-3)";
  run_table<unsigned>(
      "--to",
      {
          {"0", 0u},
          {"3", 3u},
          {"", {}, "expected a NUMA node number, got nothing"},
          {" 1", {}, kSpaces},
          {"7", {}, "no such NUMA node 7 on this machine (nodes: 0-3)"},
          {"4294967296", {}, "no such NUMA node 4294967296 on this machine (nodes: 0-3)"},
          {"-1", {}, listed},
          {"x", {}, "expected a NUMA node number (nodes: 0-3)"},
          {"1,2", {}, listed},
          {"99999999999999999999", {}, listed},
      },
      [](const char* t) { return parse_id("--to", t, IdKind::node, kFour); });
}

TEST(ParseId, NoneExistSaysNone) {
  expect_refused("--cpu", "0", "no such CPU 0 on this machine (CPUs: none)",
                 [] { parse_id("--cpu", "0", IdKind::cpu, CpuList()); });
}

TEST(ParseIdList, AgainstExistingCpus) {
  const char* syntax = "expected a list of CPUs such as 0-3,8";
  run_table<CpuList>("--cpus",
                     {
                         {"1-2", CpuList({1, 2})},
                         {"0-3", kFour},
                         {"3,0", CpuList({0, 3})},
                         {"", {}, kNothing},
                         {"0 ", {}, kSpaces},
                         {"0, 1", {}, syntax},
                         {"3-1", {}, syntax},
                         {"1,,2", {}, syntax},
                         {"a", {}, syntax},
                         {"1-", {}, syntax},
                         {"-1", {}, syntax},
                         {"99999999999999999999", {}, syntax},
                         {"4", {}, "no such CPU 4 on this machine (CPUs: 0-3)"},
                         {"0-5", {}, "no such CPUs 4-5 on this machine (CPUs: 0-3)"},
                         {"1,7,9", {}, "no such CPUs 7,9 on this machine (CPUs: 0-3)"},
                     },
                     [](const char* t) { return parse_id_list("--cpus", t, IdKind::cpu, kFour); });
  expect_refused("--membind", "0", "no such NUMA node 0 on this machine (nodes: none)",
                 [] { parse_id_list("--membind", "0", IdKind::node, CpuList()); });
}

TEST(RequireExisting, Table) {
  EXPECT_NO_THROW(require_existing("tier.node", 2, IdKind::node, kFour));
  for (std::int64_t id : {std::int64_t{-1}, std::int64_t{4}, std::int64_t{4294967296}, kI64Min}) {
    const std::string text = std::to_string(id);
    expect_refused("tier.node", text, "no such NUMA node " + text + " on this machine (nodes: 0-3)",
                   [&] { require_existing("tier.node", id, IdKind::node, kFour); });
  }
}

TEST(Plain, ShortestExactInPlainNotation) {
  const std::vector<std::pair<double, const char*>> table = {
      {1, "1"},
      {0.5, "0.5"},
      {1e6, "1000000"},
      {0.001, "0.001"},
      {-0.0, "0"},
      {-2.5, "-2.5"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1e20, "100000000000000000000"},
      {1.7976931348623157e308, "1.7976931348623157e308"},
      {INFINITY, "infinity"},
  };
  for (const auto& [value, text] : table) EXPECT_EQ(plain(value), text) << text;
}

TEST(RangeText, Table) {
  EXPECT_EQ(range_text(0, 1), "from 0 to 1");
  EXPECT_EQ(range_text(0, 100000, true), "above 0 and up to 100000");
  EXPECT_EQ(range_text(1, INFINITY), "1 or more");
  EXPECT_EQ(range_text(0, INFINITY, true), "above 0");
  EXPECT_EQ(range_text(-INFINITY, 5), "5 or less");
  EXPECT_EQ(range_text(-INFINITY, INFINITY), "in plain notation");
  EXPECT_EQ(range_text(0.25, 0.75), "from 0.25 to 0.75");
  EXPECT_EQ(range_text(0, std::numeric_limits<double>::max()), "from 0 to 1.7976931348623157e308");
}

TEST(SizeText, LargestExactSuffix) {
  const std::vector<std::pair<std::uint64_t, const char*>> table = {
      {0, "0"},
      {3, "3"},
      {1024, "1K"},
      {4096, "4K"},
      {1536, "1536"},
      {1u << 20, "1M"},
      {3ull << 30, "3G"},
      {1ull << 40, "1T"},
      {1ull << 50, "1024T"},
      {kU64Max, "18446744073709551615"},
  };
  for (const auto& [bytes, text] : table) EXPECT_EQ(size_text(bytes), text) << text;
}

// ---- paths -------------------------------------------------------------------

/// A scratch tree: a file, a directory, a bound AF_UNIX socket.
class PathChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    file = dir.path() / "f";
    sub = dir.path() / "d";
    sock = dir.path() / "s";
    std::ofstream(file) << "x";
    fs::create_directory(sub);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(sock.string().size(), sizeof addr.sun_path);
    std::strcpy(addr.sun_path, sock.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0)
        << std::strerror(errno);
    ::close(fd);  // the socket file stays
  }

  test::TempDir dir{"tier-values"};
  fs::path file, sub, sock;
};

TEST_F(PathChecks, RequirePathKinds) {
  EXPECT_NO_THROW(require_path("--config", file, PathKind::file));
  EXPECT_NO_THROW(require_path("--root", sub, PathKind::directory));
  EXPECT_NO_THROW(require_path("--socket", sock, PathKind::socket));
  struct Wrong {
    fs::path path;
    PathKind kind;
    const char* fragment;
  };
  const std::vector<Wrong> table = {
      {sub, PathKind::file, "is a directory, expected a file"},
      {sock, PathKind::file, "is a socket, expected a file"},
      {file, PathKind::directory, "is a file, expected a directory"},
      {sock, PathKind::directory, "is a socket, expected a directory"},
      {file, PathKind::socket, "is a file, expected a socket"},
      {sub, PathKind::socket, "is a directory, expected a socket"},
      {"/dev/null", PathKind::file, "is a device, expected a file"},
      {dir.path() / "missing.toml", PathKind::file, "no such file"},
      {dir.path() / "missing", PathKind::directory, "no such directory"},
      {dir.path() / "missing" / "x.toml", PathKind::file, "no such file"},
      {file / "x", PathKind::file, "cannot be read: ENOTDIR"},
      {"", PathKind::file, "expected a file, got nothing"},
      {"", PathKind::directory, "expected a directory, got nothing"},
  };
  for (const auto& w : table) {
    expect_refused("--config", w.path.string(), w.fragment,
                   [&] { require_path("--config", w.path, w.kind); });
  }
}

TEST_F(PathChecks, RequireCreatable) {
  EXPECT_NO_THROW(require_creatable("--state", dir.path() / "state.json", PathKind::file));
  EXPECT_NO_THROW(require_creatable("--state", file, PathKind::file));  // replaced in place
  EXPECT_NO_THROW(require_creatable("--socket", sub / "tierd.sock", PathKind::socket));
  EXPECT_NO_THROW(require_creatable("--socket", sock, PathKind::socket));  // a stale socket
  struct Wrong {
    fs::path path;
    PathKind kind;
    std::string fragment;
  };
  const std::vector<Wrong> table = {
      {sub, PathKind::file, "is a directory, expected a file"},
      {sock, PathKind::file, "is a socket, expected a file"},
      {file, PathKind::socket, "is a file, expected a socket"},
      {dir.path() / "missing" / "state.json", PathKind::file,
       "directory " + (dir.path() / "missing").string() + " does not exist"},
      {file / "state.json", PathKind::file, file.string() + " is a file, expected a directory"},
      {"", PathKind::socket, "expected a socket, got nothing"},
  };
  for (const auto& w : table) {
    expect_refused("--state", w.path.string(), w.fragment,
                   [&] { require_creatable("--state", w.path, w.kind); });
  }
}

// Root writes into any directory of a writable file system, so the
// unwritable case runs in a child that drops to nobody (uid/gid 65534).
TEST_F(PathChecks, RequireCreatableRefusesAnUnwritableDirectory) {
  const fs::path locked = dir.path() / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  // mkdtemp made the scratch directory 0700; nobody must reach `locked`.
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  const fs::path target = locked / "tierd.sock";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    if (::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
         ::setresuid(65534, 65534, 65534) != 0)) {
      ::_exit(77);
    }
    const auto message = refusal([&] { require_creatable("--socket", target, PathKind::socket); });
    const std::string out = message.value_or("accepted");
    const ssize_t written = ::write(pipe_fds[1], out.data(), out.size());
    ::_exit(written == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string out;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "running as root without CAP_SETUID";
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(out, "--socket '" + target.string() + "': " + locked.string() +
                     " is not writable: EACCES (Permission denied)");
}

}  // namespace
}  // namespace tier::values
