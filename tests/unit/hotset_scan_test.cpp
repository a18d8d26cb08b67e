// hotset's --scan-every (issue 19: periodic full scans between hot-set
// accesses): the flag's grammar (missing, empty, zero, negative or
// non-numeric periods are usage errors, exit 2 naming the flag; no scans
// while growing), and the workers' scans on a small buffer in memory: whole
// passes only (scanned bytes = scans x buffer size whatever the thread
// count), none before the first period, not counted as accesses, and every
// page still holds its pattern afterwards.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "../../workloads/hotset/access.hpp"
#include "../../workloads/hotset/options.hpp"
#include "../../workloads/hotset/pattern.hpp"

namespace hotset {
namespace {

Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "hotset");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return parse_options(static_cast<int>(args.size()), argv.data());
}

std::vector<std::string> base_args(std::vector<std::string> more) {
  std::vector<std::string> args{"--size", "4M", "--node", "0"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(HotsetScanOption, AbsentMeansNoScans) {
  EXPECT_EQ(parse(base_args({})).scan_every_s, 0.0);
}

TEST(HotsetScanOption, TakesSecondsLikeTheOtherDurations) {
  EXPECT_EQ(parse(base_args({"--scan-every", "5"})).scan_every_s, 5.0);
  EXPECT_EQ(parse(base_args({"--scan-every", "0.25"})).scan_every_s, 0.25);
  EXPECT_EQ(parse(base_args({"--scan-every", "2", "--duration", "4"})).scan_every_s, 2.0);
}

TEST(HotsetScanOptionDeathTest, MissingValueIsAUsageError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(parse(base_args({"--scan-every"})), testing::ExitedWithCode(2),
              "missing value: --scan-every\nusage: hotset");
}

TEST(HotsetScanOptionDeathTest, EmptyZeroNegativeOrNotANumberIsAUsageError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const char* bad : {"", "0", "0.0", "-1", "-0.5", "abc", "5s", "nan", "inf"}) {
    SCOPED_TRACE(bad);
    EXPECT_EXIT(parse(base_args({"--scan-every", bad})), testing::ExitedWithCode(2),
                "hotset: bad --scan-every .*\nusage: hotset");
  }
}

TEST(HotsetScanOptionDeathTest, NotWhileGrowing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(parse(base_args({"--scan-every", "1", "--grow-mbps", "10"})),
              testing::ExitedWithCode(2), "--grow-mbps takes no --scan-every");
}

// A patterned buffer of `pages` pages (as place_and_fill leaves it, minus
// the placement) and the workers over it.
class Buffer {
 public:
  explicit Buffer(std::size_t pages) : size_(pages * kPage) {
    void* m = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = m == MAP_FAILED ? nullptr : static_cast<char*>(m);
    if (base_ == nullptr) return;
    for (std::size_t off = 0; off < size_; off += kPage) {
      fill_words(reinterpret_cast<std::uint64_t*>(base_ + off), kPageWords);
    }
  }
  ~Buffer() {
    if (base_ != nullptr) munmap(base_, size_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  char* base() const { return base_; }
  std::size_t size() const { return size_; }
  std::size_t bad_pages() const {
    std::size_t bad = 0;
    for (std::size_t off = 0; off < size_; off += kPage) {
      bad += !check_words(reinterpret_cast<const std::uint64_t*>(base_ + off), kPageWords);
    }
    return bad;
  }

 private:
  std::size_t size_;
  char* base_ = nullptr;
};

Options small_run(const Buffer& b, unsigned threads, double scan_every_s) {
  Options o;
  o.size = b.size();
  o.hot = std::min<std::size_t>(4 * kPage, b.size());
  o.node = 0;
  o.threads = threads;
  o.write_fraction = 0.5;  // rewrites too: the scans must not disturb them
  o.scan_every_s = scan_every_s;
  return o;
}

// Waits (without asserting on time) until `scans` whole passes are counted.
bool wait_for_scans(const Workers& w, std::uint64_t scans) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (w.counters().scans.load() < scans) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

void expect_whole_passes(unsigned threads, std::size_t pages) {
  Buffer b(pages);
  ASSERT_NE(b.base(), nullptr);
  Options o = small_run(b, threads, 0.002);
  Layout layout(reinterpret_cast<std::uintptr_t>(b.base()), o);
  std::atomic<unsigned> phase{0};
  Workers w(b.base(), o, layout, phase);
  const bool scanned = wait_for_scans(w, 3);
  w.stop();
  ASSERT_TRUE(scanned) << "fewer than 3 scans in 3 s";
  const Counters& c = w.counters();
  EXPECT_GE(c.scans.load(), 3u);
  // Every begun round is finished at stop, so the bytes are whole passes.
  EXPECT_EQ(c.scanned_bytes.load(), c.scans.load() * b.size());
  EXPECT_GT(c.scan_ns.load(), 0u);
  // Each thread runs at least one batch of accesses between two of its scans.
  EXPECT_GE(c.reads.load() + c.writes.load(), 1024u);
  EXPECT_GT(c.writes.load(), 0u);
  EXPECT_EQ(b.bad_pages(), 0u);
}

TEST(HotsetScanWorkers, OneThreadScansWholePassesAndTheDataVerifies) {
  expect_whole_passes(1, 64);
}

TEST(HotsetScanWorkers, SharesTileTheBufferWhenThreadsDoNotDivideIt) {
  expect_whole_passes(3, 100);  // shares of 33, 33 and 34 pages
}

TEST(HotsetScanWorkers, MoreThreadsThanPages) {
  expect_whole_passes(4, 3);  // one thread's share is empty
}

// What two threads on a fresh 16-page buffer counted in 20 ms with
// --scan-every `scan_every` (0: no option), and the buffer's bad pages.
struct BriefRun {
  std::uint64_t scans = 0, scanned_bytes = 0, scan_ns = 0;
  std::size_t bad_pages = 0;
};
BriefRun run_briefly(double scan_every) {
  Buffer b(16);
  EXPECT_NE(b.base(), nullptr);
  Options o = small_run(b, 2, scan_every);
  Layout layout(reinterpret_cast<std::uintptr_t>(b.base()), o);
  std::atomic<unsigned> phase{0};
  Workers w(b.base(), o, layout, phase);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  w.stop();
  return {w.counters().scans.load(), w.counters().scanned_bytes.load(), w.counters().scan_ns.load(),
          b.bad_pages()};
}

TEST(HotsetScanWorkers, NoScanBeforeTheFirstPeriod) {
  const BriefRun r = run_briefly(3600);
  EXPECT_EQ(r.scans, 0u);
  EXPECT_EQ(r.scanned_bytes, 0u);
  EXPECT_EQ(r.bad_pages, 0u);
}

TEST(HotsetScanWorkers, WithoutTheOptionNothingIsScanned) {
  const BriefRun r = run_briefly(0);
  EXPECT_EQ(r.scans, 0u);
  EXPECT_EQ(r.scanned_bytes, 0u);
  EXPECT_EQ(r.scan_ns, 0u);
  EXPECT_EQ(r.bad_pages, 0u);
}

// The verification the scans share the buffer with still sees a bad byte.
TEST(HotsetScanWorkers, ACorruptedByteStillFailsTheCheck) {
  Buffer b(8);
  ASSERT_NE(b.base(), nullptr);
  Options o = small_run(b, 1, 0.002);
  Layout layout(reinterpret_cast<std::uintptr_t>(b.base()), o);
  std::atomic<unsigned> phase{0};
  {
    Workers w(b.base(), o, layout, phase);
    const bool scanned = wait_for_scans(w, 1);
    w.stop();
    ASSERT_TRUE(scanned);
  }
  b.base()[6 * kPage + 100] ^= 1;  // a cold page: only scans ever read it
  EXPECT_EQ(b.bad_pages(), 1u);
}

}  // namespace
}  // namespace hotset
