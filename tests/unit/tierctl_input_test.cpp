// Every tierctl input checked, every error the same shape (issue 16, items 1
// and 3), as a user meets them: the real binaries fed empty, negative, huge,
// non-numeric, nonexistent and wrong-kind values, one table per subcommand.
// Each refused value must
//   - exit 2, with "tierctl <cmd>: <sentence naming the flag>", the
//     command's usage line and the pointer to its --help on stderr, no
//     CLI11 wording, nothing on stdout;
//   - with --json, print exactly one JSON document on stdout:
//     {"error": {"code": "bad_input"|"bad_usage", "message": "...flag..."}};
//   - change nothing: migrate moves no page of a child holding a known
//     buffer (its /proc/PID/numa_maps are the same after every refusal),
//     run execs nothing (the command would create a marker file), the
//     daemon commands send nothing to a scripted tierd, and no command prints
//     a result (stats --pid "" no system view, bench no measurement).
// The CLI11 error types a binary cannot be made to throw (ValidationError,
// ExcludesError, RequiresError, OptionNotFound) are checked in-process
// through the same explain_parse_error() and parse_and_run() the binaries
// use. The cases per class are counted and printed at the end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include "app.hpp"
#include "scripted_tierd.hpp"
#include "test_support.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "usage.hpp"

namespace tier::test {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

const std::string kTierctl = std::string(TIER_BIN_DIR) + "/tierctl";

// ---- the classes and their counts --------------------------------------------

enum class Class { empty, negative, huge, non_numeric, nonexistent, wrong_kind, usage };

const char* class_name(Class c) {
  switch (c) {
    case Class::empty:
      return "empty";
    case Class::negative:
      return "negative";
    case Class::huge:
      return "huge";
    case Class::non_numeric:
      return "non-numeric";
    case Class::nonexistent:
      return "nonexistent";
    case Class::wrong_kind:
      return "wrong-kind";
    case Class::usage:
      return "usage (CLI11 shapes)";
  }
  return "?";
}

std::map<Class, int>& counts() {
  static std::map<Class, int> counted;
  return counted;
}

/// Prints the cases run per class when the binary ends.
class CountsReport : public ::testing::Environment {
 public:
  void TearDown() override {
    int total = 0;
    std::cout << "tierctl_input_test: refused inputs per class:";
    for (const auto& [klass, count] : counts()) {
      std::cout << " " << class_name(klass) << " " << count << ";";
      total += count;
    }
    std::cout << " total " << total << "\n";
  }
};
[[maybe_unused]] const auto* const kCountsReport =
    ::testing::AddGlobalTestEnvironment(new CountsReport);

// ---- one case ------------------------------------------------------------------

/// One refused command line: `args` after `tierctl`, beginning with the
/// `words` words that name the (sub)command; `flag` is what the message must
/// name. Placeholders are replaced by Fixture::expand().
struct Case {
  Class klass;
  std::vector<std::string> args;
  std::string flag;
};

/// CLI11's own wording, which must never reach a user.
const std::vector<std::string> kCli11Phrases = {"RequiredError",
                                                "ExtrasError",
                                                "ArgumentMismatch",
                                                "ConversionError",
                                                "ValidationError",
                                                "ExcludesError",
                                                "RequiresError",
                                                "OptionNotFound",
                                                "The following argument",
                                                "were not expected",
                                                "required but received",
                                                "At Most",
                                                "At least",
                                                "Could not convert",
                                                "Should be true/false",
                                                "Exactly 1 option from",
                                                "A subcommand is required",
                                                "Run with --help",
                                                "is not an allowed value",
                                                "not in {",
                                                "Value "};
const std::regex kCli11Missing("[0-9]+ required [A-Z|=]+ missing");

void expect_our_words(const std::string& text) {
  for (const std::string& phrase : kCli11Phrases) {
    EXPECT_THAT(text, ::testing::Not(HasSubstr(phrase))) << text;
  }
  EXPECT_FALSE(std::regex_search(text, kCli11Missing)) << text;
}

/// The scratch files, a child with a known buffer and a scripted tierd that
/// the tables refer to with placeholders.
class Fixture {
 public:
  Fixture() {
    write_text_file(file_, "not a directory, socket or topology\n");
    fs::create_directories(directory_);
  }

  std::string expand(const std::string& arg) const {
    if (arg == "SELF") return std::to_string(getpid());
    if (arg == "CHILD") return std::to_string(child_);
    if (arg == "FILE") return file_.string();
    if (arg == "DIR") return directory_.string();
    if (arg == "MARKER") return marker_.string();
    if (arg == "SOCKET") return socket_.string();
    return arg;
  }

  /// A child process with 32 MiB touched, paused until the fixture ends.
  void start_child() {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      close(ready[0]);
      auto* buffer = static_cast<char*>(std::malloc(kChildBytes));
      std::memset(buffer, 0x5a, kChildBytes);
      if (write(ready[1], &buffer, sizeof buffer) != sizeof buffer) _exit(1);
      for (;;) pause();
    }
    close(ready[1]);
    ASSERT_EQ(read(ready[0], &child_buffer_, sizeof child_buffer_),
              static_cast<ssize_t>(sizeof child_buffer_));
    close(ready[0]);
  }
  ~Fixture() {
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
  }

  /// The node of each page of the child's buffer, counted per node (the
  /// kernel's answer to move_pages(2) without target nodes; a negative
  /// errno for a page not present). Only the buffer: the rest of the
  /// child's mappings change while it settles into pause() (code pages
  /// faulted in after it said ready: +161 pages once under load), which
  /// no migrate did.
  std::map<int, long> child_pages() const {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t count = kChildBytes / page;
    std::vector<void*> pages(count);
    for (std::size_t i = 0; i < count; ++i) pages[i] = child_buffer_ + i * page;
    std::vector<int> status(count, 0);
    std::map<int, long> per_node;
    if (tier::real_memory_syscalls().move_pages(child_, count, pages.data(), nullptr, status.data(),
                                                0) != 0) {
      return per_node;
    }
    for (int node : status) ++per_node[node];
    return per_node;
  }

  const fs::path& marker() const { return marker_; }
  const fs::path& socket() const { return socket_; }

 private:
  TempDir dir_{"tierctl-input"};
  fs::path file_ = dir_.path() / "plain-file";
  fs::path directory_ = dir_.path() / "a-directory";
  fs::path marker_ = dir_.path() / "ran";
  fs::path socket_ = dir_.path() / "tierd.sock";
  static constexpr std::size_t kChildBytes = 32u << 20;
  pid_t child_ = -1;
  char* child_buffer_ = nullptr;  // in the child's address space
};

CommandResult tierctl(const Fixture& fixture, const std::vector<std::string>& args) {
  std::vector<std::string> argv{kTierctl};
  for (const std::string& arg : args) argv.push_back(fixture.expand(arg));
  return run_command(argv);
}

std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& arg : args) out += (out.empty() ? "'" : " '") + arg + "'";
  return out;
}

/// Where the `words` command words of `args` end, global options given
/// before them (--root FILE run ...) skipped.
std::size_t command_end(const std::vector<std::string>& args, std::size_t words,
                        std::string& command) {
  command = "tierctl";
  std::size_t i = 0;
  while (i < args.size() && words > 0) {
    if (args[i] == "--root" || args[i] == "--hwloc-xml" || args[i] == "--socket") {
      i += 2;
      continue;
    }
    command += " " + args[i++];
    --words;
  }
  return std::min(i, args.size());
}

/// Runs `c` (and, when the command has --json, again with --json after its
/// `words` command words) and checks the refusal's shape.
void expect_refused(const Fixture& fixture, const Case& c, std::size_t words, bool has_json) {
  ++counts()[c.klass];
  const std::string what = "tierctl " + joined(c.args);
  const CommandResult r = tierctl(fixture, c.args);
  EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.out << r.err;
  const bool json_given = std::any_of(c.args.begin(), c.args.end(), [](const std::string& arg) {
    return arg.starts_with("--json");
  });
  if (!json_given) {
    EXPECT_EQ(r.out, "") << what << ": a refused command prints no result";
  }
  std::string command;
  const std::size_t end = command_end(c.args, words, command);
  const std::string first_line = r.err.substr(0, r.err.find('\n'));
  EXPECT_TRUE(first_line.starts_with(command + ": ") || first_line.starts_with("tierctl: "))
      << what << "\n"
      << r.err;
  EXPECT_THAT(first_line, HasSubstr(c.flag)) << what;
  EXPECT_THAT(r.err, HasSubstr("Usage: tierctl")) << what;
  EXPECT_THAT(r.err, HasSubstr("--help' for more.")) << what;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 3) << what << "\n" << r.err;
  expect_our_words(r.err);
  if (!has_json) return;

  std::vector<std::string> with_json = c.args;
  with_json.insert(with_json.begin() + static_cast<std::ptrdiff_t>(end), "--json");
  const CommandResult j = tierctl(fixture, with_json);
  EXPECT_EQ(j.exit_code, 2) << what << " --json\n" << j.err;
  boost::system::error_code ec;
  const json::value doc = json::parse(j.out, ec);  // one document, nothing after it
  ASSERT_FALSE(ec) << what << " --json: stdout is not one JSON document: " << j.out;
  ASSERT_TRUE(doc.is_object() && doc.as_object().size() == 1 && doc.as_object().contains("error"))
      << j.out;
  const json::value& error = doc.at("error");
  const std::string code(error.at("code").as_string());
  EXPECT_TRUE(code == "bad_input" || code == "bad_usage") << j.out;
  EXPECT_THAT(std::string(error.at("message").as_string()), HasSubstr(c.flag)) << j.out;
  EXPECT_THAT(j.err, HasSubstr(c.flag)) << "the text goes to stderr as well";
}

void expect_all_refused(const Fixture& fixture, const std::vector<Case>& cases, std::size_t words,
                        bool has_json = true) {
  for (const Case& c : cases) expect_refused(fixture, c, words, has_json);
}

/// `prefix` then `tail`: the tables vary one flag of a valid command line.
std::vector<std::string> with(std::vector<std::string> prefix,
                              const std::vector<std::string>& tail) {
  prefix.insert(prefix.end(), tail.begin(), tail.end());
  return prefix;
}

bool pid2_is_kthreadd() {
  std::ifstream comm("/proc/2/comm");
  std::string name;
  return (comm >> name) && name == "kthreadd";
}

// ---- migrate: no page moves -------------------------------------------------------

TEST(TierctlInput, MigrateRefusesEveryBadValueAndMovesNothing) {
  Fixture fixture;
  fixture.start_child();
  const auto before = fixture.child_pages();
  ASSERT_FALSE(before.empty()) << "move_pages could not query the child's buffer";
  const std::vector<std::string> m{"migrate", "--pid", "CHILD", "--to", "0"};
  std::vector<Case> cases{
      {Class::empty, {"migrate", "--pid", "", "--to", "0"}, "--pid"},
      {Class::empty, {"migrate", "--pid", "CHILD", "--to", ""}, "--to"},
      {Class::empty, with(m, {"--from", ""}), "--from"},
      {Class::empty, with(m, {"--range", ""}), "--range"},
      {Class::empty, with(m, {"--rate", ""}), "--rate"},
      {Class::empty, with(m, {"--threads", ""}), "--threads"},
      {Class::negative, {"migrate", "--pid", "-1", "--to", "0"}, "--pid"},
      {Class::negative, {"migrate", "--pid", "CHILD", "--to", "-1"}, "--to"},
      {Class::negative, with(m, {"--from", "-1"}), "--from"},
      {Class::negative, with(m, {"--rate", "-5"}), "--rate"},
      {Class::negative, with(m, {"--rate", "0"}), "--rate"},
      {Class::negative, with(m, {"--threads", "-2"}), "--threads"},
      {Class::negative, with(m, {"--range", "0x2000-0x1000"}), "--range"},
      {Class::huge, {"migrate", "--pid", "99999999999", "--to", "0"}, "--pid"},
      {Class::huge, {"migrate", "--pid", "CHILD", "--to", "99999999999999999999"}, "--to"},
      {Class::huge, with(m, {"--rate", "10000000"}), "--rate"},
      {Class::huge, with(m, {"--threads", "100000"}), "--threads"},
      {Class::huge, with(m, {"--range", "0x0-0x1ffffffffffffffff"}), "--range"},
      {Class::non_numeric, {"migrate", "--pid", "abc", "--to", "0"}, "--pid"},
      {Class::non_numeric, {"migrate", "--pid", "CHILD", "--to", "x"}, "--to"},
      {Class::non_numeric, with(m, {"--from", "zero"}), "--from"},
      {Class::non_numeric, with(m, {"--rate", "fast"}), "--rate"},
      {Class::non_numeric, with(m, {"--rate", "1e3"}), "--rate"},
      {Class::non_numeric, with(m, {"--threads", "many"}), "--threads"},
      {Class::non_numeric, with(m, {"--range", "zz"}), "--range"},
      {Class::nonexistent, {"migrate", "--pid", "CHILD", "--to", "1"}, "--to"},
      {Class::nonexistent, with(m, {"--from", "7"}), "--from"},
      {Class::nonexistent, {"migrate", "--pid", "4194304", "--to", "0"}, "--pid"},
      {Class::wrong_kind, with(m, {"--root", "FILE"}), "--root"},
      {Class::wrong_kind, with(m, {"--hwloc-xml", "DIR"}), "--hwloc-xml"},
  };
  if (pid2_is_kthreadd()) {
    cases.push_back({Class::wrong_kind, {"migrate", "--pid", "2", "--to", "0"}, "--pid"});
  }
  expect_all_refused(fixture, cases, 1);
  EXPECT_EQ(fixture.child_pages(), before) << "a refused migrate moved pages";
  // The exact sentence of the issue, on this one-node machine.
  const CommandResult r = tierctl(fixture, {"migrate", "--pid", "CHILD", "--to", "7"});
  EXPECT_THAT(r.err, HasSubstr("no such NUMA node 7 on this machine (nodes: 0)"));
}

// ---- stats, bench, heat, topo, doctor: nothing printed or run -----------------------

TEST(TierctlInput, StatsRefusesEveryBadValue) {
  Fixture fixture;
  expect_all_refused(
      fixture,
      {
          {Class::empty, {"stats", "--pid", ""}, "--pid"},
          {Class::empty, {"stats", "--interval", ""}, "--interval"},
          {Class::empty, {"stats", "--watch", ""}, "--watch"},
          {Class::empty, {"stats", "--name", ""}, "--name"},
          {Class::empty, {"stats", "--cgroup", ""}, "--cgroup"},
          {Class::negative, {"stats", "--pid", "-3"}, "--pid"},
          {Class::negative, {"stats", "--interval", "-1"}, "--interval"},
          {Class::negative, {"stats", "--interval", "0"}, "--interval"},
          {Class::negative, {"stats", "--watch", "-0.5"}, "--watch"},
          {Class::huge, {"stats", "--pid", "99999999999"}, "--pid"},
          {Class::huge, {"stats", "--interval", "100000"}, "--interval"},
          {Class::huge, {"stats", "--watch", "99999"}, "--watch"},
          {Class::non_numeric, {"stats", "--pid", "abc"}, "--pid"},
          {Class::non_numeric, {"stats", "--interval", "soon"}, "--interval"},
          {Class::non_numeric, {"stats", "--interval", "1e-1"}, "--interval"},
          {Class::non_numeric, {"stats", "--watch", "x"}, "--watch"},
          {Class::non_numeric, {"stats", "--name", "("}, "--name"},
          {Class::nonexistent, {"stats", "--pid", "4194304"}, "--pid"},
          {Class::nonexistent, {"stats", "--name", "^no-such-process-here$"}, "--name"},
          {Class::wrong_kind, {"stats", "--root", "FILE"}, "--root"},
          {Class::usage, {"stats", "--pid", "SELF", "--name", "x"}, "--name"},
      },
      1);
}

TEST(TierctlInput, BenchRefusesEveryBadValueBeforeMeasuring) {
  Fixture fixture;
  expect_all_refused(fixture,
                     {
                         {Class::empty, {"bench", "--size", ""}, "--size"},
                         {Class::empty, {"bench", "--threads", ""}, "--threads"},
                         {Class::empty, {"bench", "--repeat", ""}, "--repeat"},
                         {Class::empty, {"bench", "--initiator", ""}, "--initiator"},
                         {Class::empty, {"bench", "--target", ""}, "--target"},
                         {Class::empty, {"bench", "--plot", ""}, "--plot"},
                         {Class::negative, {"bench", "--size", "-1"}, "--size"},
                         {Class::negative, {"bench", "--threads", "-3"}, "--threads"},
                         {Class::negative, {"bench", "--repeat", "-1"}, "--repeat"},
                         {Class::negative, {"bench", "--initiator", "-1"}, "--initiator"},
                         {Class::negative, {"bench", "--target", "-1"}, "--target"},
                         {Class::huge, {"bench", "--size", "2T"}, "--size"},
                         {Class::huge, {"bench", "--threads", "99999"}, "--threads"},
                         {Class::huge, {"bench", "--repeat", "100000"}, "--repeat"},
                         {Class::huge, {"bench", "--target", "99999999999"}, "--target"},
                         {Class::non_numeric, {"bench", "--size", "12x"}, "--size"},
                         {Class::non_numeric, {"bench", "--threads", "two"}, "--threads"},
                         {Class::non_numeric, {"bench", "--repeat", "x"}, "--repeat"},
                         {Class::non_numeric, {"bench", "--initiator", "a"}, "--initiator"},
                         {Class::nonexistent, {"bench", "--initiator", "9"}, "--initiator"},
                         {Class::nonexistent, {"bench", "--target", "0,9"}, "--target"},
                         {Class::wrong_kind, {"bench", "--plot", "DIR"}, "--plot"},
                         {Class::wrong_kind, {"bench", "--hwloc-xml", "DIR"}, "--hwloc-xml"},
                     },
                     1);
}

TEST(TierctlInput, HeatRefusesEveryBadValueBeforeSampling) {
  Fixture fixture;
  const std::vector<std::string> h{"heat", "--pid", "SELF"};
  expect_all_refused(fixture,
                     {
                         {Class::empty, {"heat", "--pid", ""}, "--pid"},
                         {Class::empty, with(h, {"--source", ""}), "--source"},
                         {Class::empty, with(h, {"--duration", ""}), "--duration"},
                         {Class::empty, with(h, {"--interval", ""}), "--interval"},
                         {Class::empty, with(h, {"--sample-every", ""}), "--sample-every"},
                         {Class::empty, with(h, {"--top", ""}), "--top"},
                         {Class::empty, with(h, {"--decay", ""}), "--decay"},
                         {Class::empty, with(h, {"--record", ""}), "--record"},
                         {Class::negative, {"heat", "--pid", "-1"}, "--pid"},
                         {Class::negative, with(h, {"--duration", "-1"}), "--duration"},
                         {Class::negative, with(h, {"--interval", "-10"}), "--interval"},
                         {Class::negative, with(h, {"--sample-every", "-1"}), "--sample-every"},
                         {Class::negative, with(h, {"--top", "-1"}), "--top"},
                         {Class::negative, with(h, {"--decay", "-0.5"}), "--decay"},
                         {Class::huge, {"heat", "--pid", "99999999999"}, "--pid"},
                         {Class::huge, with(h, {"--duration", "100000"}), "--duration"},
                         {Class::huge, with(h, {"--interval", "2h"}), "--interval"},
                         {Class::huge, with(h, {"--sample-every", "99999999"}), "--sample-every"},
                         {Class::huge, with(h, {"--top", "99999999999"}), "--top"},
                         {Class::huge, with(h, {"--decay", "1.5"}), "--decay"},
                         {Class::non_numeric, {"heat", "--pid", "x"}, "--pid"},
                         {Class::non_numeric, with(h, {"--duration", "soon"}), "--duration"},
                         {Class::non_numeric, with(h, {"--interval", "fast"}), "--interval"},
                         {Class::non_numeric, with(h, {"--decay", "1e-1"}), "--decay"},
                         {Class::non_numeric, with(h, {"--top", "many"}), "--top"},
                         {Class::nonexistent, {"heat", "--pid", "4194304"}, "--pid"},
                         {Class::nonexistent, with(h, {"--source", "pebs"}), "pebs"},
                         {Class::wrong_kind, with(h, {"--record", "DIR"}), "--record"},
                         {Class::wrong_kind, with(h, {"--root", "FILE"}), "--root"},
                     },
                     1);
}

TEST(TierctlInput, TopoAndDoctorRefuseBadOverridesAndGlobalPaths) {
  Fixture fixture;
  expect_all_refused(
      fixture,
      {
          {Class::empty, {"topo", "--tier", ""}, "--tier"},
          {Class::empty, {"topo", "--root", ""}, "--root"},
          {Class::empty, {"topo", "--hwloc-xml", ""}, "--hwloc-xml"},
          {Class::empty, {"doctor", "--root", ""}, "--root"},
          {Class::negative, {"topo", "--tier", "0=-1"}, "--tier"},
          {Class::negative, {"topo", "--tier", "-1=0"}, "--tier"},
          {Class::huge, {"topo", "--tier", "0=99999"}, "--tier"},
          {Class::huge, {"topo", "--tier", "99999999999=0"}, "--tier"},
          {Class::non_numeric, {"topo", "--tier", "x=y"}, "--tier"},
          {Class::non_numeric, {"topo", "--tier", "0=one"}, "--tier"},
          {Class::non_numeric, {"topo", "--tier", "noequals"}, "--tier"},
          {Class::nonexistent, {"topo", "--tier", "7=1"}, "--tier"},
          {Class::nonexistent, {"topo", "--root", "/nonexistent"}, "--root"},
          {Class::nonexistent, {"topo", "--hwloc-xml", "/nonexistent.xml"}, "--hwloc-xml"},
          {Class::nonexistent, {"doctor", "--root", "/nonexistent"}, "--root"},
          {Class::wrong_kind, {"topo", "--root", "FILE"}, "--root"},
          {Class::wrong_kind, {"topo", "--hwloc-xml", "DIR"}, "--hwloc-xml"},
          {Class::wrong_kind, {"doctor", "--root", "FILE"}, "--root"},
      },
      1);
  // The sentence names the kind it found and the one it wanted.
  const CommandResult r = tierctl(fixture, {"topo", "--root", "FILE"});
  EXPECT_THAT(r.err, HasSubstr("is a file, expected a directory"));
}

// ---- the daemon commands: nothing reaches tierd ----------------------------------------

class TierctlDaemonInput : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* method : {"status", "workloads.list", "workloads.register", "workloads.update",
                               "workloads.unregister", "policy.get", "policy.set", "pause",
                               "resume", "reload", "pools.list"}) {
      tierd_.reply(method, json::object{});
    }
    tierd_.start();
  }
  void TearDown() override {
    EXPECT_EQ(tierd_.calls(), 0) << "a refused command line reached tierd";
  }
  Fixture fixture_;
  ScriptedDaemon tierd_{fixture_.socket()};
};

TEST_F(TierctlDaemonInput, WorkloadsRegisterRefusesEveryBadValue) {
  const std::vector<std::string> r{"workloads", "register", "--socket", "SOCKET"};
  const std::vector<std::string> p = with(r, {"--pid", "SELF"});
  expect_all_refused(fixture_,
                     {
                         {Class::empty, with(r, {"--pid", ""}), "--pid"},
                         {Class::empty, with(r, {"--cgroup", ""}), "--cgroup"},
                         {Class::empty, with(p, {"--name", ""}), "--name"},
                         {Class::empty, with(p, {"--class", ""}), "--class"},
                         {Class::empty, with(p, {"--priority", ""}), "--priority"},
                         {Class::empty, with(p, {"--pool", ""}), "--pool"},
                         {Class::empty, with(p, {"--quota", ""}), "--quota"},
                         {Class::empty, with(p, {"--budget-mbps", ""}), "--budget-mbps"},
                         {Class::negative, with(r, {"--pid", "-1"}), "--pid"},
                         {Class::negative, with(p, {"--priority", "-5000"}), "--priority"},
                         {Class::negative, with(p, {"--budget-mbps", "-1"}), "--budget-mbps"},
                         {Class::negative, with(p, {"--quota", "-5%"}), "--quota"},
                         {Class::negative, with(p, {"--pool", "numa:-1"}), "--pool"},
                         {Class::huge, with(r, {"--pid", "99999999999"}), "--pid"},
                         {Class::huge, with(p, {"--priority", "5000"}), "--priority"},
                         {Class::huge, with(p, {"--budget-mbps", "1000000"}), "--budget-mbps"},
                         {Class::huge, with(p, {"--quota", "200%"}), "--quota"},
                         {Class::huge, with(p, {"--quota", "99999999999999999999999"}), "--quota"},
                         {Class::huge, with(p, {"--pool", "exclusive:99999"}), "--pool"},
                         {Class::non_numeric, with(r, {"--pid", "x"}), "--pid"},
                         {Class::non_numeric, with(p, {"--priority", "high"}), "--priority"},
                         {Class::non_numeric, with(p, {"--budget-mbps", "fast"}), "--budget-mbps"},
                         {Class::non_numeric, with(p, {"--quota", "lots"}), "--quota"},
                         {Class::non_numeric, with(p, {"--pool", "big"}), "--pool"},
                         {Class::non_numeric, with(p, {"--pool", "exclusive:x"}), "--pool"},
                         {Class::nonexistent, with(p, {"--class", "fast"}), "--class"},
                         {Class::wrong_kind, with(p, {"--socket", "FILE"}), "--socket"},
                         {Class::usage, {"workloads", "register", "--socket", "SOCKET"}, "--pid"},
                         {Class::usage, with(p, {"--cgroup", "/x"}), "--cgroup"},
                     },
                     2);
}

TEST_F(TierctlDaemonInput, WorkloadIdsAndPoliciesAreChecked) {
  const std::vector<std::string> update{"workloads", "update", "--socket", "SOCKET"};
  const std::vector<std::string> unreg{"workloads", "unregister", "--socket", "SOCKET"};
  const std::vector<std::string> set{"policy", "set", "--socket", "SOCKET"};
  expect_all_refused(
      fixture_,
      {
          {Class::empty, with(update, {"", "--pool", "shared"}), "ID"},
          {Class::empty, with(update, {"pid:1", "--pool", ""}), "--pool"},
          {Class::negative, with(update, {"-5", "--pool", "shared"}), "ID"},
          {Class::huge, with(update, {"99999999999", "--pool", "shared"}), "ID"},
          {Class::non_numeric, with(update, {"pid:x", "--pool", "shared"}), "ID"},
          {Class::non_numeric, with(update, {"pid:1", "--pool", "numa:x"}), "--pool"},
          {Class::empty, with(unreg, {""}), "ID"},
          {Class::negative, with(unreg, {"-1"}), "ID"},
          {Class::huge, with(unreg, {"99999999999"}), "ID"},
          {Class::non_numeric, with(unreg, {"pid:abc"}), "ID"},
          {Class::wrong_kind, with(unreg, {"1", "--socket", "FILE"}), "--socket"},
          {Class::usage, with(unreg, {}), "ID"},
      },
      2);
  expect_refused(fixture_, {Class::usage, {"workloads", "bogus", "--socket", "SOCKET"}, "bogus"}, 1,
                 true);
  expect_all_refused(
      fixture_,
      {
          {Class::empty, with(set, {""}), "NAME"},
          {Class::empty, with(set, {"static", "budget_mbps="}), "KEY=VALUE"},
          {Class::empty, with(set, {"static", "--param", ""}), "--param"},
          {Class::non_numeric, with(set, {"static", "--param", "novalue"}), "--param"},
          {Class::usage, with(set, {}), "NAME"},
      },
      2);
}

TEST_F(TierctlDaemonInput, CommandsWithoutValuesCheckTheSocketAndTheirWords) {
  for (const char* command : {"status", "pools", "ps", "pause", "resume", "reload"}) {
    expect_all_refused(fixture_,
                       {
                           {Class::empty, {command, "--socket", ""}, "--socket"},
                           {Class::wrong_kind, {command, "--socket", "FILE"}, "--socket"},
                           {Class::usage, {command, "--socket", "SOCKET", "extra"}, "extra"},
                           {Class::usage, {command, "--socket", "SOCKET", "--force"}, "--force"},
                       },
                       1);
  }
}

// ---- run: nothing is exec'd -----------------------------------------------------------

TEST(TierctlInput, RunRefusesEveryBadValueAndStartsNothing) {
  Fixture fixture;
  const std::vector<std::string> cmd{"touch", "MARKER"};
  const auto r = [&](std::vector<std::string> flags) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), cmd.begin(), cmd.end());
    return args;
  };
  const std::vector<Case> cases{
      {Class::empty, r({"--quota", ""}), "--quota"},
      {Class::empty, r({"--pool", ""}), "--pool"},
      {Class::empty, r({"--membind", ""}), "--membind"},
      {Class::empty, r({"--class", ""}), "--class"},
      {Class::empty, r({"--preload", ""}), "--preload"},
      {Class::negative, r({"--membind", "-1"}), "--membind"},
      {Class::negative, r({"--pool", "numa:-1"}), "--pool"},
      {Class::negative, r({"--physcpubind", "-1"}), "--physcpubind"},
      {Class::huge, r({"--pool", "exclusive:99999"}), "--pool"},
      {Class::huge, r({"--membind", "99999999999"}), "--membind"},
      {Class::huge, r({"--quota", "99999999999999999999999"}), "--quota"},
      {Class::non_numeric, r({"--pool", "exclusive:x"}), "--pool"},
      {Class::non_numeric, r({"--physcpubind", "x"}), "--physcpubind"},
      {Class::non_numeric, r({"--quota", "lots"}), "--quota"},
      {Class::nonexistent, r({"--membind", "7"}), "--membind"},
      {Class::nonexistent, r({"--near", "no-such-device"}), "--near"},
      {Class::nonexistent, r({"--class", "batch"}), "--class"},
      {Class::wrong_kind, {"--root", "FILE", "run", "touch", "MARKER"}, "--root"},
      {Class::usage, r({"--bogus"}), "--bogus"},
      {Class::usage, {"run", "--membind"}, "--membind"},
  };
  for (const Case& c : cases) {
    expect_refused(fixture, c, 1, false);
    EXPECT_FALSE(fs::exists(fixture.marker())) << joined(c.args) << ": the command ran";
  }
}

// ---- the shapes of a command line (CLI11's errors, in our words) -----------------------

TEST(TierctlInput, EveryCommandLineShapeErrorIsInOurWords) {
  Fixture fixture;
  fixture.start_child();
  const std::vector<std::string> m{"migrate", "--pid", "CHILD", "--to", "0"};
  expect_all_refused(fixture,
                     {
                         {Class::usage, {"migrate", "--pid", "CHILD"}, "--to"},          // Required
                         {Class::usage, {"migrate", "--pid", "CHILD", "--to"}, "--to"},  // Mismatch
                         {Class::usage, with(m, {"--to", "0"}), "--to"},     // given twice
                         {Class::usage, with(m, {"--bogus"}), "--bogus"},    // Extras
                         {Class::usage, with(m, {"extra"}), "extra"},        // Extras
                         {Class::usage, with(m, {"--json=abc"}), "--json"},  // Conversion
                         {Class::usage, {"migarte"}, "migarte"},             // no such command
                     },
                     1);
  const CommandResult typo = tierctl(fixture, {"migarte"});
  EXPECT_EQ(typo.err.substr(0, typo.err.find('\n')),
            "tierctl: unknown command 'migarte' (did you mean 'migrate'?)");
  const CommandResult option = tierctl(fixture, with(m, {"--jsn"}));
  EXPECT_THAT(option.err, HasSubstr("unknown option '--jsn' (did you mean '--json'?)"));
  const CommandResult none = tierctl(fixture, {});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("missing COMMAND"));
  expect_our_words(none.err);
  // One usage line, not the whole help.
  EXPECT_THAT(tierctl(fixture, {"migrate", "--pid", "CHILD"}).err,
              ::testing::StartsWith("tierctl migrate: missing --to NODE\n"
                                    "Usage: tierctl migrate --pid PID --to NODE [OPTIONS]\n"
                                    "Run 'tierctl migrate --help' for more.\n"));
}

// In-process, through the functions both binaries use: the CLI11 errors no
// tierctl command line can raise any more (tierctl has no CLI11 validators,
// excludes or needs) still come out in our words, and a lookup bug is an
// internal error, not CLI11's "--x not found".
TEST(TierctlInput, ErrorTypesNoCommandLineReachesAreInOurWordsToo) {
  tierctl::GlobalOptions global;
  auto app = tierctl::make_app(global);
  CLI::App* cmd = app->add_subcommand("demo", "demo");
  std::string a, b;
  CLI::Option* first = cmd->add_option("--first", a);
  CLI::Option* second = cmd->add_option("--second", b);
  first->excludes(second);
  cmd->add_option("--third", b)->needs(first);
  cmd->add_option("--checked", b)->check([](const std::string&) { return "must be even"; });
  const auto explain = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "tierctl");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    try {
      app->parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      return tierctl::explain_parse_error(*app, tierctl::selected_command(*app), e);
    }
    return std::string("(parsed)");
  };
  struct Shape {
    std::vector<std::string> args;
    std::string expected;
  };
  for (const Shape& shape : std::vector<Shape>{
           {{"demo", "--first", "1", "--second", "2"}, "--first and --second exclude each other"},
           {{"demo", "--third", "3"}, "--third needs --first"},
           {{"demo", "--checked", "3"}, "--checked: must be even"},
       }) {
    const std::string message = explain(shape.args);
    EXPECT_EQ(message, shape.expected);
    expect_our_words(message);
    app->clear();
    ++counts()[Class::usage];
  }

  ::testing::internal::CaptureStderr();
  std::vector<std::string> args{"tierctl", "demo"};
  std::vector<char*> argv{args[0].data(), args[1].data()};
  const int code = tierctl::parse_and_run(
      *app, global, []() -> int { throw CLI::OptionNotFound("--nowhere"); }, 2, argv.data());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_EQ(err,
            "tierctl: internal error: tierctl looked up option --nowhere, which it never "
            "registered\n");
}

}  // namespace
}  // namespace tier::test
