#include "tier/posix/sysroot.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>

namespace tier {
namespace {

namespace fs = std::filesystem;

class SysRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tier-sysroot-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "sys/devices/system/node/node0");
    fs::create_directories(dir_ / "sys/devices/system/node/node12");
    fs::create_directories(dir_ / "sys/devices/system/node/nodefoo");
    write("sys/devices/system/node/node0/value", "  42 kB\n");
    write("sys/devices/system/node/node0/text", "hello\n\n");
    fs::create_directories(dir_ / "sys/devices/platform/dev0");
    fs::create_directories(dir_ / "sys/bus/dax/devices");
    fs::create_symlink("../../../devices/platform/dev0", dir_ / "sys/bus/dax/devices/dax0.0");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir_ / rel) << text; }
  fs::path dir_;
};

TEST_F(SysRootTest, MapsKernelPathsUnderRoot) {
  SysRoot root(dir_);
  EXPECT_FALSE(root.is_live());
  EXPECT_EQ(root.path("/sys/x"), dir_ / "sys/x");
  EXPECT_EQ(root.read("/sys/devices/system/node/node0/text"), "hello");
  EXPECT_EQ(root.read_int("/sys/devices/system/node/node0/value"), 42);
  EXPECT_FALSE(root.read("/sys/missing"));
  EXPECT_FALSE(root.read_int("/sys/devices/system/node/node0/text"));
}

TEST_F(SysRootTest, ListsNumberedEntriesInNumericOrder) {
  SysRoot root(dir_);
  EXPECT_EQ(numbered_entries(root, "/sys/devices/system/node", "node"),
            (std::vector<unsigned>{0, 12}));
  EXPECT_TRUE(root.list("/sys/nope").empty());
}

TEST_F(SysRootTest, ResolvesRelativeLinksAsKernelPaths) {
  SysRoot root(dir_);
  EXPECT_EQ(root.resolve_link("/sys/bus/dax/devices/dax0.0"), "/sys/devices/platform/dev0");
  EXPECT_FALSE(root.resolve_link("/sys/devices/platform/dev0"));
}

TEST(SysRootLive, SlashIsLive) {
  EXPECT_TRUE(SysRoot("/").is_live());
  EXPECT_EQ(SysRoot("/").path("/proc/meminfo"), fs::path("/proc/meminfo"));
}

TEST_F(SysRootTest, ProcessExistsInATreeByItsProcDirectory) {
  fs::create_directories(dir_ / "proc/77");
  SysRoot root(dir_);
  EXPECT_TRUE(root.process_exists(77));
  EXPECT_FALSE(root.process_exists(78));
  EXPECT_FALSE(root.process_exists(0));
}

TEST(SysRootLive, ProcessExistsTillItIsReaped) {
  const SysRoot root("/");
  EXPECT_TRUE(root.process_exists(::getpid()));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  // Exited but not reaped: a zombie still exists (its pid is not reusable).
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  EXPECT_TRUE(root.process_exists(child));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_FALSE(root.process_exists(child));
  EXPECT_FALSE(root.process_exists(-1));
}

}  // namespace
}  // namespace tier
