// state.json on disk: round trip, atomic replace (no temporary left, mode
// 0600, a concurrent reader never sees a torn file), absent vs damaged, and
// write errors.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "workloads/state_file.hpp"

namespace {

using ::testing::HasSubstr;
using tier::test::TempDir;
namespace fs = std::filesystem;
namespace json = boost::json;

unsigned mode_of(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(StateFile, WriteReadRoundTripCreatesTheDirectory) {
  TempDir dir("tier-state");
  std::string path = (dir.path() / "var/lib/tier/state.json").string();
  json::value document = json::parse(R"({"workloads":[{"id":"pid:1"}],"paused":true})");
  tierd::write_state_file(path, document);
  EXPECT_EQ(mode_of(path), 0600u);
  mode_t umask_now = ::umask(0);
  ::umask(umask_now);
  EXPECT_EQ(mode_of(dir.path() / "var/lib/tier"), 0755u & ~static_cast<unsigned>(umask_now));
  std::string text = tier::test::read_text_file(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  auto read = tierd::read_state_file(path);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, document);
}

TEST(StateFile, ReplaceLeavesOnlyTheNewFileWithMode0600) {
  TempDir dir("tier-state");
  std::string path = (dir.path() / "state.json").string();
  tier::test::write_text_file(path, "{\"old\":1}\n");
  ::chmod(path.c_str(), 0644);
  // A temporary left by a crashed earlier run of this pid is overwritten.
  std::string stale = path + ".tmp." + std::to_string(::getpid());
  tier::test::write_text_file(stale, "garbage");
  ::chmod(stale.c_str(), 0644);

  tierd::write_state_file(path, json::parse(R"({"new":2})"));
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"state.json"});
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(*tierd::read_state_file(path), json::parse(R"({"new":2})"));
}

TEST(StateFile, AConcurrentReaderNeverSeesATornFile) {
  TempDir dir("tier-state");
  std::string path = (dir.path() / "state.json").string();
  auto document = [](int generation) {
    json::array items;
    for (int i = 0; i < 2000; ++i) items.emplace_back(generation);
    return json::value(json::object{{"generation", generation}, {"items", std::move(items)}});
  };
  tierd::write_state_file(path, document(0));
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> torn{0};
  std::thread reader([&] {
    while (!done) {
      try {
        auto value = tierd::read_state_file(path);
        if (!value) {
          ++torn;
          continue;
        }
        auto generation = value->at("generation").as_int64();
        if (value->at("items").as_array().size() != 2000 ||
            value->at("items").as_array().back().as_int64() != generation) {
          ++torn;
        }
      } catch (const std::exception&) {
        ++torn;
      }
      ++reads;
    }
  });
  // The writes start once the reader is reading: on a loaded machine the
  // reader thread may otherwise first run after the last write (a run with
  // two compilers beside it read nothing at all).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (reads == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  for (int generation = 1; generation <= 100; ++generation) {
    tierd::write_state_file(path, document(generation));
  }
  done = true;
  reader.join();
  EXPECT_EQ(torn, 0) << "of " << reads << " reads";
  EXPECT_GT(reads, 0);
  EXPECT_EQ(tierd::read_state_file(path)->at("generation"), 100);
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"state.json"});
}

TEST(StateFile, MissingIsNullopt) {
  TempDir dir("tier-state");
  EXPECT_FALSE(tierd::read_state_file((dir.path() / "state.json").string()));
  EXPECT_FALSE(tierd::read_state_file((dir.path() / "no/such/dir/state.json").string()));
}

std::string read_error(const std::string& path) {
  try {
    tierd::read_state_file(path);
  } catch (const tierd::StateFileError& error) {
    return error.what();
  }
  return "(read)";
}

TEST(StateFile, BadJsonOrUnreadableNamesThePath) {
  TempDir dir("tier-state");
  std::string path = (dir.path() / "state.json").string();
  for (const char* text : {"{\"workloads\": [", "not json", "{} {}"}) {
    tier::test::write_text_file(path, text);
    std::string error = read_error(path);
    EXPECT_THAT(error, HasSubstr(path)) << text;
    EXPECT_THAT(error,
                HasSubstr("not valid JSON (" + std::to_string(std::strlen(text)) + " bytes)"))
        << text;
  }
  tier::test::write_text_file(path, "");
  EXPECT_THAT(read_error(path), HasSubstr("state file " + path + " is empty (0 bytes)"));
  std::string as_dir = (dir.path() / "adir").string();
  fs::create_directory(as_dir);
  EXPECT_THAT(read_error(as_dir), HasSubstr("cannot read state file " + as_dir));
}

std::string write_error_of(const std::string& path, const json::value& document) {
  try {
    tierd::write_state_file(path, document);
  } catch (const tierd::StateFileError& error) {
    return error.what();
  }
  return "(written)";
}

std::string write_error(const std::string& path) {
  return write_error_of(path, json::object{});
}

// A write that fails half-way (here the file size limit, as a full file
// system fails it) leaves the previous file byte-identical and no
// temporary behind. In a child: the limit must not touch the test's output.
TEST(StateFile, AWriteFailingHalfWayLeavesThePreviousFileByteIdentical) {
  TempDir dir("tier-state");
  std::string path = (dir.path() / "state.json").string();
  tierd::write_state_file(path, json::parse(R"({"good":1})"));
  const std::string before = tier::test::read_text_file(path);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // write(2) then fails with EFBIG
    struct rlimit limit {
      4096, 4096
    };
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(3);
    const std::string error = write_error_of(path, json::object{{"big", std::string(65536, 'x')}});
    ::_exit(error.find("cannot write state file " + path + ": write: ") != std::string::npos &&
                    error.find("File too large") != std::string::npos
                ? 0
                : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(tier::test::read_text_file(path), before);
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"state.json"}));
}

TEST(StateFile, UnwritableLocationsThrowNamingThePath) {
  TempDir dir("tier-state");
  // A file where the directory should be: even root cannot create under it.
  tier::test::write_text_file(dir.path() / "blocker", "x");
  std::string under_file = (dir.path() / "blocker/state.json").string();
  EXPECT_THAT(write_error(under_file), HasSubstr("cannot write state file " + under_file));
  std::string deeper = (dir.path() / "blocker/sub/state.json").string();
  EXPECT_THAT(write_error(deeper), HasSubstr("cannot write state file " + deeper));
  // The state path itself is a directory: the rename fails, no temporary stays.
  fs::create_directory(dir.path() / "statedir");
  fs::create_directory(dir.path() / "statedir/inner");
  std::string onto_dir = (dir.path() / "statedir").string();
  EXPECT_THAT(write_error(onto_dir), HasSubstr("rename"));
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"blocker", "statedir"}));
  // /proc refuses new files whoever we are.
  EXPECT_THAT(write_error("/proc/tier-state.json"), HasSubstr("/proc/tier-state.json"));
  if (::geteuid() != 0) {
    fs::create_directory(dir.path() / "ro");
    ::chmod((dir.path() / "ro").c_str(), 0555);
    EXPECT_THAT(write_error((dir.path() / "ro/state.json").string()),
                HasSubstr("Permission denied"));
  }
}

}  // namespace
