// CPU use from /proc/stat (libtier/src/cpu/cpu_usage.cpp): exact fractions
// from fixture readings, and one live reading of this machine's kernel with
// a busy child pinned to CPU 0.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "test_support.hpp"
#include "tier/cpu/cpu_usage.hpp"

namespace tier::cpu {
namespace {

// A fixture root holding only /proc/stat.
class StatRoot {
 public:
  void write(const std::string& text) { test::write_text_file(dir_.path() / "proc/stat", text); }
  CpuStat read() const {
    std::optional<CpuStat> stat = read_proc_stat(SysRoot(dir_.path()));
    if (!stat) throw std::runtime_error("fixture /proc/stat unreadable");
    return *stat;
  }

 private:
  test::TempDir dir_{"tier-cpu-usage"};
};

// Fields: user nice system idle iowait irq softirq steal guest guest_nice.
const char* const kBefore =
    "cpu  300 0 100 1600 100 0 0 0 0 0\n"
    "cpu0 100 0 50 800 50 0 0 0 0 0\n"
    "cpu1 200 0 50 800 50 0 0 0 0 0\n"
    "intr 1234 0 0\n"
    "ctxt 5678\n";
// cpu0: +60 user +20 system +100 idle +20 iowait: busy 80 of 200.
// cpu1: +150 user (of which 150 guest: counted once) +10 irq +40 idle: 160 of 200.
const char* const kAfter =
    "cpu  510 0 120 1740 120 10 0 0 150 0\n"
    "cpu0 160 0 70 900 70 0 0 0 0 0\n"
    "cpu1 350 0 50 840 50 10 0 0 150 0\n"
    "intr 2345 0 0\n"
    "ctxt 6789\n";

TEST(CpuUsage, TwoReadingsGiveExactPerCpuFractions) {
  StatRoot root;
  root.write(kBefore);
  const CpuStat before = root.read();
  root.write(kAfter);
  const CpuStat after = root.read();
  ASSERT_EQ(before.cpus.size(), 2u) << "the aggregate line is not a CPU";
  const std::map<unsigned, double> fractions = busy_fractions(before, after);
  ASSERT_EQ(fractions.size(), 2u);
  EXPECT_DOUBLE_EQ(fractions.at(0), 0.4);
  EXPECT_DOUBLE_EQ(fractions.at(1), 0.8);
  EXPECT_DOUBLE_EQ(*busy_fraction(before, after, *CpuList::parse("0-1")), 0.6);
  EXPECT_DOUBLE_EQ(*busy_fraction(before, after, *CpuList::parse("1")), 0.8);
}

TEST(CpuUsage, SamplerReportsFromTheSecondReadingOn) {
  test::TempDir dir("tier-cpu-sampler");
  CpuUsageSampler sampler{SysRoot(dir.path())};
  EXPECT_EQ(sampler.sample(*CpuList::parse("0")), std::nullopt) << "no /proc/stat yet";
  test::write_text_file(dir.path() / "proc/stat", kBefore);
  EXPECT_EQ(sampler.sample(*CpuList::parse("0")), std::nullopt) << "first reading";
  test::write_text_file(dir.path() / "proc/stat", kAfter);
  EXPECT_DOUBLE_EQ(*sampler.sample(*CpuList::parse("0-1")), 0.6);
  EXPECT_DOUBLE_EQ(*sampler.sample(*CpuList::parse("0-1")), 0.0) << "nothing moved since";
}

TEST(CpuUsage, IowaitCountsAsIdleAndABackwardsCounterAddsNothing) {
  const CpuStat before = parse_proc_stat("cpu0 100 0 0 100 500 0 0 0\n");
  // iowait fell by 100 (NO_HZ accounting): that interval adds no jiffies.
  const CpuStat after = parse_proc_stat("cpu0 150 0 0 150 400 0 0 0\n");
  EXPECT_DOUBLE_EQ(busy_fractions(before, after).at(0), 0.5);
}

TEST(CpuUsage, StealIrqAndSoftirqAreBusy) {
  const CpuStat before = parse_proc_stat("cpu3 0 0 0 0 0 0 0 0 0 0\n");
  const CpuStat after = parse_proc_stat("cpu3 0 0 0 70 0 10 10 10 0 0\n");
  EXPECT_DOUBLE_EQ(busy_fractions(before, after).at(3), 0.3);
}

TEST(CpuUsage, OldKernelsWithFourCountersParse) {
  const CpuStat stat = parse_proc_stat("cpu0 1 2 3 4\n");
  ASSERT_EQ(stat.cpus.size(), 1u);
  EXPECT_EQ(stat.cpus[0].total(), 10u);
  EXPECT_EQ(stat.cpus[0].busy(), 6u);
}

TEST(CpuUsage, CpusMissingFromOneReadingHaveNoFigure) {
  const CpuStat before = parse_proc_stat("cpu0 0 0 0 0 0 0 0 0\ncpu2 0 0 0 0 0 0 0 0\n");
  const CpuStat after = parse_proc_stat("cpu0 1 0 0 1 0 0 0 0\ncpu1 5 0 0 5 0 0 0 0\n");
  const std::map<unsigned, double> fractions = busy_fractions(before, after);
  EXPECT_EQ(fractions.size(), 1u);
  EXPECT_DOUBLE_EQ(fractions.at(0), 0.5);
  EXPECT_EQ(busy_fraction(before, after, *CpuList::parse("1-2")), std::nullopt);
  EXPECT_DOUBLE_EQ(*busy_fraction(before, after, *CpuList::parse("0-2")), 0.5);
}

TEST(CpuUsage, NoElapsedTimeIsIdle) {
  const CpuStat stat = parse_proc_stat("cpu0 5 0 0 5 0 0 0 0\n");
  EXPECT_DOUBLE_EQ(busy_fractions(stat, stat).at(0), 0.0);
}

TEST(CpuUsage, MalformedLinesAreNamed) {
  for (const char* bad :
       {"cpu0 12 x 3 4", "cpu0 1 2 3", "cpu0 1 2 3 4 5 6 7 8 9 z", "cpu7x 1 2 3 4"}) {
    try {
      parse_proc_stat(std::string("cpu  1 1 1 1\n") + bad + "\n");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(e.what(), "malformed /proc/stat line: '" + std::string(bad) + "'");
    }
  }
}

TEST(CpuUsage, LinesThatAreNotCpuNAreIgnored) {
  const CpuStat stat = parse_proc_stat("cpu  1 1 1 1\ncpufreq 9\ncpuA 1 2 3 4\ncpu2 1 1 1 1\n");
  ASSERT_EQ(stat.cpus.size(), 1u);
  EXPECT_EQ(stat.cpus[0].cpu, 2u);
}

TEST(CpuUsage, UnreadableStatIsNullopt) {
  test::TempDir empty("tier-cpu-usage-empty");
  EXPECT_EQ(read_proc_stat(SysRoot(empty.path())), std::nullopt);
}

// A child spinning on CPU 0, killed and reaped however the test ends.
class Spinner {
 public:
  explicit Spinner(unsigned cpu) {
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      if (sched_setaffinity(0, sizeof set, &set) != 0) _exit(1);
      volatile unsigned long spins = 0;
      for (;;) spins = spins + 1;
    }
  }
  ~Spinner() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Spinner(const Spinner&) = delete;
  Spinner& operator=(const Spinner&) = delete;

 private:
  pid_t pid_ = -1;
};

TEST(CpuUsage, LiveBusyChildMakesCpu0Busy) {
  const SysRoot live;
  Spinner spinner(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let it land on CPU 0
  const std::optional<CpuStat> before = read_proc_stat(live);
  ASSERT_TRUE(before) << "/proc/stat unreadable";
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::optional<CpuStat> after = read_proc_stat(live);
  ASSERT_TRUE(after);
  const std::map<unsigned, double> fractions = busy_fractions(*before, *after);
  ASSERT_TRUE(fractions.count(0)) << "no cpu0 line in /proc/stat";
  EXPECT_GT(fractions.at(0), 0.5);
  EXPECT_LE(fractions.at(0), 1.0);
  const std::optional<double> cpu0 = busy_fraction(*before, *after, *CpuList::parse("0"));
  ASSERT_TRUE(cpu0);
  EXPECT_DOUBLE_EQ(*cpu0, fractions.at(0));
}

}  // namespace
}  // namespace tier::cpu
