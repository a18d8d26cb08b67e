// json_text(): Boost.JSON's text except for doubles, which are written in
// plain notation and keep their decimal point (tier/json/json_text.hpp), in
// every --json output, the control protocol and tierd's state file.
#include "tier/json/json_text.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <regex>

#include "test_support.hpp"
#include "tier/bench/bench.hpp"
#include "tier/heat/report_json.hpp"
#include "tier/protocol/control_protocol.hpp"
#include "tier/topology/topology.hpp"

namespace tier {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

struct DoubleCase {
  double number;
  std::string text;
};

TEST(JsonText, DoublesInPlainNotationWithADecimalPoint) {
  const double inf = std::numeric_limits<double>::infinity();
  const DoubleCase cases[] = {
      {1.0, "1.0"},
      {0.0, "0.0"},
      {-0.0, "0.0"},
      {0.25, "0.25"},
      {-3.5, "-3.5"},
      {262.9, "262.9"},
      {4096.0, "4096.0"},
      {-2.0, "-2.0"},
      {1e-7, "0.0000001"},
      {1.5e-10, "0.00000000015"},
      {0.1 + 0.2, "0.30000000000000004"},
      {123456789.125, "123456789.125"},
      {1e21, "1000000000000000000000.0"},
      // Beyond 2^53 the plain form is the double's exact value.
      {1e23, "99999999999999991611392.0"},
      {9007199254740993.0, "9007199254740992.0"},
      // JSON has no NaN or infinity: null, never Boost's NaN / Infinity.
      {std::nan(""), "null"},
      {inf, "null"},
      {-inf, "null"},
  };
  for (const DoubleCase& c : cases) {
    EXPECT_EQ(json_text(json::value(c.number)), c.text) << c.text;
    // Inside a document alike.
    EXPECT_EQ(json_text(json::array{c.number, 7}), "[" + c.text + ",7]") << c.text;
  }
}

// The extremes of double still have no exponent: the longest texts there are.
TEST(JsonText, ExtremeDoublesStayPlain) {
  const std::string smallest = json_text(json::value(-std::numeric_limits<double>::denorm_min()));
  EXPECT_EQ(smallest, "-0." + std::string(323, '0') + "5");
  const std::string largest = json_text(json::value(std::numeric_limits<double>::max()));
  EXPECT_EQ(largest.size(), 309u + 2u);
  EXPECT_EQ(largest.substr(0, 17), "17976931348623157");
  EXPECT_EQ(largest.substr(largest.size() - 2), ".0");
}

// "-0.00120" -> "12", "1.5e+21" -> "15": the digits that carry the value.
std::string significant_digits(const std::string& number) {
  std::string digits;
  for (char ch : number.substr(0, number.find_first_of("eE"))) {
    if (std::isdigit(static_cast<unsigned char>(ch))) digits += ch;
  }
  digits.erase(0, digits.find_first_not_of('0'));
  digits.erase(digits.find_last_not_of('0') + 1);
  return digits;
}

// A double comes back as the same double, and as a double (not an integer):
// a decimal field stays a decimal for a reader that keeps them apart.
TEST(JsonText, DoublesReadBackUnchanged) {
  for (double number : {1.0, 0.0, 0.25, -3.5, 1e-7, 1e21, 262.9, 0.1 + 0.2, 4096.0,
                        0.028571428571428564, 245.71428571428572, 1.7e-5, 90.96}) {
    const json::value back = json::parse(json_text(json::value(number)));
    ASSERT_TRUE(back.is_double()) << json_text(back);
    EXPECT_EQ(back.get_double(), number) << json_text(back);
  }
  // A sweep over the magnitudes tier reports, read back with std::from_chars,
  // which rounds exactly (Boost.JSON 1.81's parser may land one ulp off, see
  // fuzz/fuzz_request.cpp): the digits are the shortest that round-trip.
  std::mt19937_64 random(16);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-12, 22);
  for (int i = 0; i < 20000; ++i) {
    const double number = (i % 2 ? -1 : 1) * mantissa(random) * std::pow(10.0, exponent(random));
    const std::string text = json_text(json::value(number));
    ASSERT_EQ(text.find_first_of("eE"), std::string::npos) << text;
    double back = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), back);
    ASSERT_TRUE(ec == std::errc() && end == text.data() + text.size()) << text;
    EXPECT_EQ(back, number) << text;
    // The shortest digits, those of the shortest scientific form (up to
    // 2^53: above, the plain form is the double's exact integer value).
    if (std::fabs(number) < 9007199254740992.0) {
      char scientific[32];
      const auto [sci_end, sci_ec] = std::to_chars(scientific, scientific + sizeof scientific,
                                                   number, std::chars_format::scientific);
      EXPECT_EQ(significant_digits(text), significant_digits(std::string(scientific, sci_end)))
          << text;
    }
  }
}

TEST(JsonText, IntegersBooleansAndNullAsBoostWritesThem) {
  const json::value values[] = {
      json::value(std::numeric_limits<std::int64_t>::min()),
      json::value(std::numeric_limits<std::int64_t>::max()),
      json::value(std::numeric_limits<std::uint64_t>::max()),
      json::value(0),
      json::value(-1),
      json::value(true),
      json::value(false),
      json::value(nullptr),
  };
  for (const json::value& value : values) {
    EXPECT_EQ(json_text(value), json::serialize(value));
    EXPECT_EQ(json::parse(json_text(value)), value);
  }
  EXPECT_EQ(json_text(json::value(std::numeric_limits<std::uint64_t>::max())),
            "18446744073709551615");
  EXPECT_EQ(json_text(json::value(std::numeric_limits<std::int64_t>::min())),
            "-9223372036854775808");
}

// Every byte value, alone, in text and in a key, escaped as Boost escapes it
// (no UTF-8 validation: bytes >= 0x80 pass through in both).
TEST(JsonText, StringsEscapedLikeBoost) {
  std::string every_byte;
  for (int byte = 0; byte < 256; ++byte) {
    const std::string one(1, static_cast<char>(byte));
    const json::object keyed{{one, one}};
    EXPECT_EQ(json_text(json::value(one)), json::serialize(json::value(one))) << byte;
    EXPECT_EQ(json_text(keyed), json::serialize(keyed)) << byte;
    every_byte += one;
    every_byte += "ab";
  }
  EXPECT_EQ(json_text(json::value(every_byte)), json::serialize(json::value(every_byte)));
  EXPECT_EQ(json_text(json::value("tab\there \"quoted\" back\\slash\n\x01/")),
            R"("tab\there \"quoted\" back\\slash\n\u0001/")");
  std::string out = "x";
  append_json_string(out, "caf\xc3\xa9 \"q\"");
  EXPECT_EQ(out, "x\"caf\xc3\xa9 \\\"q\\\"\"");
}

TEST(JsonText, NestedDocuments) {
  const json::value doc = json::parse(R"({
      "name": "node\u0001", "nodes": [{"id": 0, "share": 0.25, "hot": true},
                                      {"id": 1, "share": 1.0, "tags": []}],
      "empty": {}, "matrix": [[1.0, 0.0], [2.5, null]], "key with \"quote\"": -7})");
  EXPECT_EQ(json_text(doc),
            R"({"name":"node\u0001","nodes":[{"id":0,"share":0.25,"hot":true},)"
            R"({"id":1,"share":1.0,"tags":[]}],"empty":{},"matrix":[[1.0,0.0],[2.5,null]],)"
            R"("key with \"quote\"":-7})");
  // Without doubles the text is Boost's, member order and all.
  const json::value plain = json::parse(R"({"b":[1,{"c":"x\ny","a":[]}],"a":null,"z":false})");
  EXPECT_EQ(json_text(plain), json::serialize(plain));
  // The object and array overloads write what the value does.
  EXPECT_EQ(json_text(doc.as_object()), json_text(doc));
  EXPECT_EQ(json_text(doc.at("matrix").as_array()), "[[1.0,0.0],[2.5,null]]");
  std::string out = "reply: ";
  append_json_text(out, json::array{1.0, 0.5});
  append_json_text(out, json::object{{"n", 2}});
  append_json_text(out, json::value(false));
  EXPECT_EQ(out, R"(reply: [1.0,0.5]{"n":2}false)");
}

// The control protocol writes with it: the same lines as before but for the
// numbers, and tierctl reads them back to the same values.
TEST(JsonText, ControlProtocolLines) {
  const json::value result{{"share", 1.0}, {"rate", 0.0}, {"ratio", 262.9}, {"count", 3}};
  const std::string ok = control::encode_ok(result);
  EXPECT_EQ(ok,
            R"({"version":1,"ok":true,"result":{"share":1.0,"rate":0.0,"ratio":262.9,"count":3}})"
            "\n");
  EXPECT_EQ(control::parse_reply(ok.substr(0, ok.size() - 1)), result);
  EXPECT_EQ(control::encode_ok(nullptr), R"({"version":1,"ok":true,"result":null})"
                                         "\n");
  EXPECT_EQ(control::encode_request("x\"y", json::object{{"rate_mbps", 100.0}}),
            R"({"version":1,"method":"x\"y","params":{"rate_mbps":100.0}})"
            "\n");
  EXPECT_EQ(control::encode_request("status"), R"({"version":1,"method":"status"})"
                                               "\n");
  EXPECT_EQ(control::encode_error("no \"such\"\npid", control::ErrorCode::not_found),
            R"({"version":1,"ok":false,"error":"no \"such\"\npid","code":"not_found"})"
            "\n");
  std::string line = control::encode_request("m", json::object{{"a", 0.5}, {"b", -1}});
  line.pop_back();  // the newline that ends it
  const control::Request request = control::parse_request(line);
  EXPECT_EQ(request.method, "m");
  EXPECT_EQ(request.params, (json::value{{"a", 0.5}, {"b", -1}}));
}

// `tierctl bench --json` says what each matrix holds: measured figures as
// decimals (to 0.01), HMAT figures, sizes and thread counts as integers,
// huge pages as booleans.
TEST(JsonText, BenchMatricesIntegersAndBooleans) {
  bench::BenchReport report;
  report.initiators = {0};
  report.targets = {0, 2};
  report.repeat = 1;
  bench::PairResult pair;
  pair.initiator = 0;
  pair.target = 2;
  pair.size_bytes = 64u << 20;
  pair.threads = 2;
  pair.huge_pages = true;
  pair.on_target = 1.0;
  pair.latency_ns = 90.956;  // hundredths: 90.96 exactly, not 90.96000000000001
  pair.read_mbps = 15093.72;
  pair.write_mbps = 1000;
  pair.copy_mbps = 800;
  report.pairs = {pair};
  TopologyOptions options;
  options.root = SysRoot(fs::path(TIER_FIXTURES) / "sysfs" / "2s-cxl-hmat");
  const std::string text = json_text(bench::to_json(report, load_topology(options)));
  for (const char* fragment :
       {R"("latency_ns":[[null,90.96]])", R"("read":[[null,15093.72]])",
        R"("write":[[null,1000.0]])", R"("read_latency_ns":[[90,250]])",
        R"("read_bandwidth_mbps":[[100000,30000]])", R"("size_bytes":67108864)",
        R"("per_pair":{"size_bytes":[[null,67108864]],"threads":[[null,2]],)"
        R"("huge_pages":[[null,true]],"on_target":[[null,1.0]]})"}) {
    EXPECT_NE(text.find(fragment), std::string::npos) << fragment << " in\n" << text;
  }
}

// `tierctl heat --json`: the cross-NUMA matrix counts accesses (integers),
// its shares are decimals.
TEST(JsonText, HeatCrossNumaCountsAreIntegers) {
  heat::HeatReport report;
  report.sources.push_back(heat::SourceRun{"bpf-fault", {}, {}, "", ""});
  report.cross_numa.add(0, 0, 3);
  report.cross_numa.add(0, 1, 1);
  const std::string text = json_text(heat::report_json(report, {}, {}));
  for (const char* fragment :
       {R"("local_share":0.75,"remote_share":0.25,)",
        R"("cross_numa":{"cpu_node_x_memory_node":[[3,1],[0,0]],"local":3,"remote":1,)"}) {
    EXPECT_NE(text.find(fragment), std::string::npos) << fragment << " in\n" << text;
  }
}

// ---- the programs' real output -------------------------------------------

// A number in exponent form, outside strings.
bool has_exponent(const std::string& text) {
  static const std::regex strings(R"("(?:[^"\\]|\\.)*")");
  static const std::regex exponent("[0-9][eE][+-]?[0-9]");
  return std::regex_search(std::regex_replace(text, strings, "\"\""), exponent);
}

TEST(JsonText, TheExponentCheckSeesNumbersOnly) {
  EXPECT_TRUE(has_exponent(R"({"a":1E0})"));
  EXPECT_TRUE(has_exponent(R"([0.5,-2.5e-1])"));
  EXPECT_FALSE(has_exponent(R"({"a":0.25,"pci":"0000:00:1e.0","t":"2e5 \" 1E0"})"));
}

struct ProgramRun {
  std::string name;
  std::vector<std::string> argv;
  // JSON pointer -> the kind it must have there.
  std::vector<std::pair<std::string, json::kind>> kinds;
};

void PrintTo(const ProgramRun& run, std::ostream* out) {
  *out << run.name;
}

class ProgramJson : public ::testing::TestWithParam<ProgramRun> {};

TEST_P(ProgramJson, HasNoExponentAndTypedFields) {
  const ProgramRun& run = GetParam();
  const test::CommandResult result = test::run_command(run.argv);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  boost::system::error_code ec;
  const json::value doc = json::parse(result.out, ec);
  ASSERT_FALSE(ec) << ec.message() << "\n" << result.out;
  EXPECT_FALSE(has_exponent(result.out)) << result.out;
  EXPECT_EQ(result.out.find("Infinity"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("NaN"), std::string::npos) << result.out;
  for (const auto& [pointer, kind] : run.kinds) {
    const json::value* value = doc.find_pointer(pointer, ec);
    ASSERT_NE(value, nullptr) << pointer << " in\n" << result.out;
    const bool integer = value->is_int64() || value->is_uint64();
    EXPECT_TRUE(kind == json::kind::int64 ? integer : value->kind() == kind)
        << pointer << " is " << json_text(*value);
  }
}

const std::string kBin = TIER_BIN_DIR;
constexpr json::kind kInteger = json::kind::int64;  // int64 or uint64
constexpr json::kind kDecimal = json::kind::double_;
constexpr json::kind kBool = json::kind::bool_;

std::vector<ProgramRun> runs() {
  const std::string fixture = (fs::path(TIER_FIXTURES) / "sysfs" / "2s-cxl-hmat").string();
  return {
      {"bench",
       {kBin + "/tierctl-full", "bench", "--size", "1M", "--repeat", "1", "--threads", "1",
        "--json"},
       {{"/latency_ns/0/0", kDecimal},
        {"/bandwidth_mbps/read/0/0", kDecimal},
        {"/size_bytes", kInteger},
        {"/threads", kInteger},
        {"/huge_pages", kBool},
        {"/per_pair/size_bytes/0/0", kInteger},
        {"/per_pair/threads/0/0", kInteger},
        {"/per_pair/huge_pages/0/0", kBool},
        {"/per_pair/on_target/0/0", kDecimal}}},
      {"stats",
       {kBin + "/tierctl-full", "stats", "--interval", "0.2", "--json"},
       {{"/interval_seconds", kDecimal},
        {"/nodes/0/node", kInteger},
        {"/nodes/0/total_bytes", kInteger},
        {"/nodes/0/rates/promote_pages_per_s", kDecimal},
        {"/rates/migrate_pages_per_s", kDecimal}}},
      {"topo",
       {kBin + "/tierctl-full", "--root", fixture, "topo", "--json"},
       {{"/nodes/0/id", kInteger},
        {"/nodes/0/allowed", kBool},
        {"/perf/0/read_latency_ns", kInteger},
        {"/tier_count", kInteger}}},
      {"tier_sim",
       {kBin + "/tier-sim", "--pages", "64", "--epochs", "2", "--json"},
       {{"/epochs/0/now_s", kDecimal},
        {"/epochs/0/scored", kBool},
        {"/epochs/0/samples", kInteger},
        {"/summary/mean_fast_share", kDecimal},
        {"/summary/pages_migrated", kInteger},
        {"/page_bytes", kInteger}}},
  };
}

INSTANTIATE_TEST_SUITE_P(Outputs, ProgramJson, ::testing::ValuesIn(runs()),
                         [](const ::testing::TestParamInfo<ProgramRun>& param_info) {
                           return param_info.param.name;
                         });

}  // namespace
}  // namespace tier
