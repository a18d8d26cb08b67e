// Workload class/source names, the quota syntax, the JSON form of a workload
// (docs/api.md) and the registry's state round trip (to_json → restore) with
// the liveness checks restore makes.
#include <boost/json.hpp>
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workloads/registry.hpp"
#include "workloads_fixture.hpp"

namespace {

using ::testing::HasSubstr;
using tier::test::FakeSystem;
using tier::test::proc;
using tier::test::rule;
using tier::test::watch;
using tierd::Quota;
using tierd::Registry;
using tierd::Workload;
using tierd::WorkloadClass;
using tierd::WorkloadSource;
namespace json = boost::json;

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = KiB * 1024;
constexpr std::uint64_t GiB = MiB * 1024;
constexpr std::uint64_t TiB = GiB * 1024;

TEST(WorkloadNames, ClassAndSourceStrings) {
  EXPECT_STREQ(tierd::to_string(WorkloadClass::online), "online");
  EXPECT_STREQ(tierd::to_string(WorkloadClass::offline), "offline");
  EXPECT_STREQ(tierd::to_string(WorkloadClass::normal), "default");
  EXPECT_EQ(tierd::parse_workload_class("online"), WorkloadClass::online);
  EXPECT_EQ(tierd::parse_workload_class("offline"), WorkloadClass::offline);
  EXPECT_EQ(tierd::parse_workload_class("default"), WorkloadClass::normal);
  EXPECT_FALSE(tierd::parse_workload_class("normal"));
  EXPECT_FALSE(tierd::parse_workload_class("Online"));
  EXPECT_FALSE(tierd::parse_workload_class(""));
  for (auto source : {WorkloadSource::api, WorkloadSource::cgroup, WorkloadSource::rule}) {
    EXPECT_EQ(tierd::parse_workload_source(tierd::to_string(source)), source);
  }
  EXPECT_STREQ(tierd::to_string(WorkloadSource::rule), "rule");
  EXPECT_FALSE(tierd::parse_workload_source("config"));
}

// ---- quota ----------------------------------------------------------------------

struct QuotaCase {
  std::string text;
  std::optional<std::uint64_t> bytes;
  std::optional<double> percent;
  std::string canonical;  // to_string of the result
};

class QuotaParse : public ::testing::TestWithParam<QuotaCase> {};

TEST_P(QuotaParse, ParsesAndPrintsBack) {
  const QuotaCase& c = GetParam();
  Quota quota = tierd::parse_quota(c.text);
  EXPECT_EQ(quota.bytes, c.bytes);
  EXPECT_EQ(quota.percent, c.percent);
  EXPECT_EQ(tierd::to_string(quota), c.canonical);
  EXPECT_EQ(tierd::parse_quota(tierd::to_string(quota)), quota);
}

INSTANTIATE_TEST_SUITE_P(Table, QuotaParse,
                         ::testing::Values(QuotaCase{"", std::nullopt, std::nullopt, ""},
                                           QuotaCase{"none", std::nullopt, std::nullopt, ""},
                                           QuotaCase{" None ", std::nullopt, std::nullopt, ""},
                                           QuotaCase{"8G", 8 * GiB, std::nullopt, "8G"},
                                           QuotaCase{"512M", 512 * MiB, std::nullopt, "512M"},
                                           QuotaCase{"64K", 64 * KiB, std::nullopt, "64K"},
                                           QuotaCase{"1T", TiB, std::nullopt, "1T"},
                                           QuotaCase{"8GiB", 8 * GiB, std::nullopt, "8G"},
                                           QuotaCase{"8GB", 8 * GiB, std::nullopt, "8G"},
                                           QuotaCase{"8g", 8 * GiB, std::nullopt, "8G"},
                                           QuotaCase{"8 G", 8 * GiB, std::nullopt, "8G"},
                                           QuotaCase{"2048M", 2 * GiB, std::nullopt, "2G"},
                                           QuotaCase{"1536M", 1536 * MiB, std::nullopt, "1536M"},
                                           QuotaCase{"1048576", MiB, std::nullopt, "1M"},
                                           QuotaCase{"1000", 1000, std::nullopt, "1000"},
                                           QuotaCase{"1000B", 1000, std::nullopt, "1000"},
                                           QuotaCase{"0", 0, std::nullopt, "0"},
                                           QuotaCase{"16777215T", 16777215 * TiB, std::nullopt,
                                                     "16777215T"},
                                           QuotaCase{"25%", std::nullopt, 25.0, "25%"},
                                           QuotaCase{"12.5%", std::nullopt, 12.5, "12.5%"},
                                           QuotaCase{"100%", std::nullopt, 100.0, "100%"},
                                           QuotaCase{"0.1%", std::nullopt, 0.1, "0.1%"},
                                           QuotaCase{" 33.3 % ", std::nullopt, 33.3, "33.3%"}),
                         [](const auto& p) { return "case" + std::to_string(p.index); });

class QuotaReject : public ::testing::TestWithParam<std::string> {};

TEST_P(QuotaReject, ThrowsNamingTheTextAndTheForms) {
  try {
    tierd::parse_quota(GetParam());
    FAIL() << "accepted '" << GetParam() << "'";
  } catch (const std::invalid_argument& error) {
    std::string what = error.what();
    EXPECT_THAT(what, HasSubstr("'" + GetParam() + "'"));
    EXPECT_THAT(what, HasSubstr("8G"));
    EXPECT_THAT(what, HasSubstr("25%"));
    EXPECT_THAT(what, HasSubstr("none"));
  }
}

INSTANTIATE_TEST_SUITE_P(Table, QuotaReject,
                         ::testing::Values("8X", "G", "-5", "-5%", "0%", "100.5%", "abc", "%",
                                           "nan%", "inf%", "1.5G", "8GiBs", "8KK", "1 2",
                                           "18446744073709551616", "16777216T", "5%%", "+8G"),
                         [](const auto& p) { return "case" + std::to_string(p.index); });

// ---- workload JSON --------------------------------------------------------------

Workload sample_pid_workload() {
  Workload w;
  w.id = "pid:1234";
  w.name = "redis-server";
  w.source = WorkloadSource::api;
  w.pid = 1234;
  w.start_time = 777;
  w.workload_class = WorkloadClass::online;
  w.priority = 10;
  w.pool = "shared";
  w.quota = tierd::parse_quota("8G");
  w.budget_mbps = 100;
  w.registered_unix_s = 1796000000;
  return w;
}

TEST(WorkloadJson, ApiObjectHasExactlyTheDocumentedFields) {
  json::object object = tierd::workload_json(sample_pid_workload());
  EXPECT_EQ(json::value(object), json::parse(R"({"id": "pid:1234", "name": "redis-server",
      "source": "api", "pid": 1234, "cgroup": "", "class": "online", "priority": 10,
      "pool": "shared", "quota": "8G", "budget_mbps": 100, "registered_unix_s": 1796000000})"));

  Workload cgroup;
  cgroup.id = "cgroup:/sys/fs/cgroup/x";
  cgroup.name = "x";
  cgroup.source = WorkloadSource::cgroup;
  cgroup.cgroup = "/sys/fs/cgroup/x";
  json::object c = tierd::workload_json(cgroup);
  EXPECT_TRUE(c.at("pid").is_null());
  EXPECT_EQ(c.at("class"), "default");
  EXPECT_EQ(c.at("quota"), "");
}

TEST(WorkloadJson, FromJsonInvertsAndKeepsStartTime) {
  Workload w = sample_pid_workload();
  json::object object = tierd::workload_json(w);
  object["start_time"] = w.start_time;
  EXPECT_EQ(tierd::workload_from_json(object), w);
  // Without start_time (an API object) it is 0: unknown.
  object.erase("start_time");
  EXPECT_EQ(tierd::workload_from_json(object).start_time, 0u);
}

std::string from_json_error(const std::string& text) {
  try {
    tierd::workload_from_json(json::parse(text));
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(WorkloadJson, MalformedObjectsNameTheField) {
  EXPECT_THAT(from_json_error("[]"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(from_json_error(R"({"source":"api","pid":1})"), HasSubstr("'id': missing"));
  EXPECT_THAT(from_json_error(R"({"id":5,"source":"api","pid":1})"),
              HasSubstr("'id': expected a string"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"web","pid":1})"), HasSubstr("'source'"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":"1"})"),
              HasSubstr("'pid': expected an integer"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":-1})"),
              HasSubstr("'pid': out of range"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":null,"cgroup":""})"),
              HasSubstr("exactly one of pid and cgroup"));
  EXPECT_THAT(from_json_error(R"({"id":"x","source":"api","pid":1,"cgroup":"/x"})"),
              HasSubstr("exactly one of pid and cgroup"));
  EXPECT_THAT(from_json_error(R"({"id":"x","source":"api","cgroup":"x"})"),
              HasSubstr("'cgroup': 'x' is not an absolute path"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":1,"class":"gold"})"),
              HasSubstr("'class'"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":1,"priority":1.5})"),
              HasSubstr("'priority': expected an integer"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":1,"priority":99999999999})"),
              HasSubstr("'priority': out of range"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":1,"quota":"8X"})"),
              HasSubstr("'quota': invalid quota '8X'"));
  EXPECT_THAT(from_json_error(R"({"id":"pid:1","source":"api","pid":1,"start_time":-3})"),
              HasSubstr("'start_time'"));
  EXPECT_EQ(from_json_error(R"({"id":"pid:1","source":"api","pid":1})"), "(accepted)");
}

// ---- state round trip -------------------------------------------------------------

TEST(RegistryState, ToJsonRestoreRoundTrip) {
  FakeSystem sys;
  sys.add_process(proc(100).named("redis-server").started(5000));
  sys.add_process(proc(200).named("memcached").started(6000));
  sys.add_cgroup("/sys/fs/cgroup/app.slice");
  sys.add_cgroup("/sys/fs/cgroup/pods/a");
  Registry registry(sys.root());
  tierd::RegisterRequest request;
  request.pid = 100;
  request.workload_class = WorkloadClass::online;
  request.priority = 7;
  request.pool = "fast";
  request.quota = tierd::parse_quota("12.5%");
  registry.register_workload(request, 1796000000);
  tierd::RegisterRequest by_cgroup;
  by_cgroup.cgroup = "app.slice";
  by_cgroup.name = "app";
  by_cgroup.quota = tierd::parse_quota("512M");
  registry.register_workload(by_cgroup, 1796000001);
  registry.configure({watch("/sys/fs/cgroup/pods")}, {rule("memcached")});
  registry.refresh(1796000002);
  ASSERT_EQ(registry.workloads().size(), 4u);

  // Through text, as the state file does.
  json::value state = json::parse(json::serialize(registry.to_json()));
  ASSERT_TRUE(state.at("workloads").is_array());
  EXPECT_EQ(state.at("workloads").at(0).at("start_time"), 5000);

  Registry restored(sys.root());
  auto dropped = restored.restore(state);
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(restored.workloads(), registry.workloads());
  // A restored rule workload is kept by the next refresh under the same rules.
  restored.configure({watch("/sys/fs/cgroup/pods")}, {rule("memcached")});
  auto result = restored.refresh(1796000003);
  EXPECT_TRUE(result.added.empty());
  EXPECT_TRUE(result.dropped.empty());
  EXPECT_EQ(restored.workloads(), registry.workloads());
}

TEST(RegistryState, RestoreDropsWhatDiedWhileDown) {
  FakeSystem sys;
  for (pid_t pid : {100, 101, 102}) sys.add_process(proc(pid).started(5000));
  sys.add_cgroup("/sys/fs/cgroup/gone");
  sys.add_cgroup("/sys/fs/cgroup/kept");
  Registry registry(sys.root());
  for (pid_t pid : {100, 101, 102}) {
    tierd::RegisterRequest request;
    request.pid = pid;
    registry.register_workload(request, 1);
  }
  for (const char* cgroup : {"gone", "kept"}) {
    tierd::RegisterRequest request;
    request.cgroup = cgroup;
    registry.register_workload(request, 1);
  }
  json::value state = registry.to_json();

  sys.remove_process(100);
  sys.add_process(proc(101).started(9000));
  sys.remove_cgroup("/sys/fs/cgroup/gone");
  Registry restored(sys.root());
  auto dropped = restored.restore(state);
  ASSERT_EQ(dropped.size(), 3u);
  EXPECT_EQ(dropped[0].workload.id, "pid:100");
  EXPECT_EQ(dropped[0].reason, "process 100 exited while tierd was down");
  EXPECT_EQ(dropped[1].workload.id, "pid:101");
  EXPECT_EQ(dropped[1].reason, "pid 101 reused by another process");
  EXPECT_EQ(dropped[2].workload.id, "cgroup:/sys/fs/cgroup/gone");
  EXPECT_EQ(dropped[2].reason, "cgroup /sys/fs/cgroup/gone removed while tierd was down");
  std::vector<std::string> ids;
  for (const auto& w : restored.workloads()) ids.push_back(w.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"pid:102", "cgroup:/sys/fs/cgroup/kept"}));
}

std::string restore_error(const std::string& text) {
  FakeSystem sys;
  Registry registry(sys.root());
  try {
    registry.restore(json::parse(text));
  } catch (const std::invalid_argument& error) {
    EXPECT_TRUE(registry.workloads().empty());
    return error.what();
  }
  return "(accepted)";
}

TEST(RegistryState, MalformedDocumentsThrowNamingTheField) {
  EXPECT_THAT(restore_error("[]"), HasSubstr("expected a JSON object"));
  EXPECT_THAT(restore_error("{}"), HasSubstr("'workloads' missing"));
  EXPECT_THAT(restore_error(R"({"workloads":{}})"), HasSubstr("'workloads' is not an array"));
  EXPECT_THAT(restore_error(R"({"workloads":[{"id":"pid:1","source":"api","pid":1},
                                               {"id":"pid:2","source":"api","pid":"x"}]})"),
              HasSubstr("workloads[1]: workload field 'pid'"));
  EXPECT_THAT(restore_error(R"({"workloads":[{"id":"pid:1","source":"api","pid":1},
                                               {"id":"pid:1","source":"api","pid":1}]})"),
              HasSubstr("duplicate workload id 'pid:1'"));
  EXPECT_EQ(restore_error(R"({"workloads":[]})"), "(accepted)");
}

}  // namespace
