// The "perf-fault" source on this kernel: real perf_event_open software
// page-fault sampling of a forked child that first-touches pages of a known
// buffer on command. Asserts the addresses, pid/tid/cpu and times that
// arrive, LOST records from an unpolled tiny ring counted as drops, threads
// created after start() sampled through inherit, and inactivity once the
// child exits. Skipped, with the reason, where perf_event_open is refused.
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {
namespace {

const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// A forked child that owns an untouched anonymous buffer (mapped before the
// fork, so its pages are not present in the child; no THP) and touches pages of it
// when told to, on its main thread or on a thread created for the purpose.
class TouchChild {
 public:
  /// `pin`: run the child on one CPU only, so all its samples go to one ring.
  explicit TouchChild(std::size_t pages, bool pin = false) : pages_(pages) {
    void* map =
        mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + strerror(errno));
    buffer_ = static_cast<char*>(map);
    // One fault per base page: a transparent huge page would satisfy 512
    // first touches with one fault.
    madvise(map, pages * kPage, MADV_NOHUGEPAGE);
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + strerror(errno));
    if (pid_ == 0) {
      ::close(to[1]);
      ::close(from[0]);
      if (pin) pin_to_first_allowed_cpu();
      serve(to[0], from[1]);  // never returns
    }
    ::close(to[0]);
    ::close(from[1]);
    to_child_ = to[1];
    from_child_ = from[0];
  }
  ~TouchChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(to_child_);
    ::close(from_child_);
    munmap(buffer_, pages_ * kPage);
  }
  TouchChild(const TouchChild&) = delete;
  TouchChild& operator=(const TouchChild&) = delete;

  pid_t pid() const { return pid_; }
  std::uint64_t page_addr(std::size_t i) const {
    return reinterpret_cast<std::uintptr_t>(buffer_) + i * kPage;
  }

  /// Touches pages [begin, begin + count); returns when the child is done.
  void touch(std::uint32_t begin, std::uint32_t count, bool on_new_thread = false) {
    Command cmd{'t', begin, count, on_new_thread ? std::uint8_t{1} : std::uint8_t{0}};
    send_and_wait(cmd);
  }
  /// Tells the child to exit 0 (once) and, when `reap`, waits for it.
  void exit(bool reap) {
    if (!exit_sent_) {
      Command cmd{'x', 0, 0, 0};
      ASSERT_EQ(write(to_child_, &cmd, sizeof cmd), static_cast<ssize_t>(sizeof cmd));
      exit_sent_ = true;
    }
    if (!reap) return;
    int status = 0;
    ASSERT_EQ(waitpid(pid_, &status, 0), pid_);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pid_ = -1;
  }

 private:
  struct Command {
    char op;
    std::uint32_t begin, count;
    std::uint8_t on_new_thread;
  };

  void send_and_wait(const Command& cmd) {
    ASSERT_EQ(write(to_child_, &cmd, sizeof cmd), static_cast<ssize_t>(sizeof cmd));
    pollfd p{from_child_, POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 10'000), 1) << "child did not answer in 10 s";
    char done = 0;
    ASSERT_EQ(read(from_child_, &done, 1), 1);
    ASSERT_EQ(done, 'd');
  }

  static void pin_to_first_allowed_cpu() {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) _exit(4);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &allowed)) continue;
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(4);
      return;
    }
  }

  [[noreturn]] void serve(int in, int out) {
    Command cmd{};
    while (read(in, &cmd, sizeof cmd) == static_cast<ssize_t>(sizeof cmd)) {
      if (cmd.op == 'x') _exit(0);
      auto touch = [this, cmd] {
        for (std::uint32_t i = cmd.begin; i < cmd.begin + cmd.count; ++i) {
          buffer_[i * kPage] = 1;  // first write: a fault at exactly this address
        }
      };
      if (cmd.on_new_thread) {
        std::thread(touch).join();
      } else {
        touch();
      }
      char done = 'd';
      if (write(out, &done, 1) != 1) _exit(3);
    }
    _exit(2);
  }

  std::size_t pages_;
  char* buffer_ = nullptr;
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  bool exit_sent_ = false;
};

class PerfFaultSource : public ::testing::Test {
 protected:
  void SetUp() override {
    SourceAvailability a = perf_fault_availability(SysRoot("/"));
    if (!a.available) GTEST_SKIP() << "perf-fault unavailable: " << a.reason;
  }

  // Polls until `done(samples)` or 30 s (far from the milliseconds a poll
  // takes, even under ASan on a loaded machine); returns the last PollResult.
  static PollResult poll_until(HeatSource& source, std::vector<AccessSample>& samples,
                               const std::function<bool(const PollResult&)>& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    PollResult r;
    do {
      r = source.poll(samples);
      if (done(r)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (std::chrono::steady_clock::now() < deadline);
    return r;
  }

  // Samples inside the child's buffer, by page index.
  static std::map<std::size_t, AccessSample> by_page(const TouchChild& child, std::size_t pages,
                                                     const std::vector<AccessSample>& samples) {
    std::map<std::size_t, AccessSample> pages_seen;
    for (const auto& s : samples) {
      if (s.addr < child.page_addr(0) || s.addr >= child.page_addr(pages)) continue;
      EXPECT_EQ((s.addr - child.page_addr(0)) % kPage, 0u) << "fault not at the touched byte";
      pages_seen.emplace((s.addr - child.page_addr(0)) / kPage, s);
    }
    return pages_seen;
  }
};

TEST_F(PerfFaultSource, EveryFirstTouchArrivesWithPidTidCpuAndTime) {
  constexpr std::size_t kPages = 256;
  TouchChild child(kPages);
  SourceOptions options;
  options.ring_bytes = std::size_t{1} << 20;
  auto source = make_perf_fault_source(options);
  EXPECT_EQ(source->name(), "perf-fault");
  source->start({child.pid()});
  std::uint64_t before = monotonic_ns();

  child.touch(0, kPages);

  std::uint64_t after = monotonic_ns();
  std::vector<AccessSample> samples;
  poll_until(*source, samples,
             [&](const PollResult&) { return by_page(child, kPages, samples).size() == kPages; });
  auto pages = by_page(child, kPages, samples);
  ASSERT_EQ(pages.size(), kPages);
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  for (const auto& [index, s] : pages) {
    SCOPED_TRACE("page " + std::to_string(index));
    EXPECT_EQ(s.addr, child.page_addr(index));
    EXPECT_EQ(s.pid, static_cast<std::uint32_t>(child.pid()));
    EXPECT_EQ(s.tid, static_cast<std::uint32_t>(child.pid()));
    EXPECT_GE(s.cpu, 0);
    EXPECT_LT(s.cpu, cpus);
    EXPECT_EQ(s.kind, SampleKind::sw_fault);
    EXPECT_GE(s.time_ns, before) << "CLOCK_MONOTONIC, within the touch";
    EXPECT_LE(s.time_ns, after);
  }
  SourceCounters c = source->counters();
  EXPECT_GE(c.samples, kPages);
  EXPECT_EQ(c.samples, samples.size());
  EXPECT_EQ(c.drops, 0u);
  EXPECT_GE(c.polls, 1u);
}

TEST_F(PerfFaultSource, ThreadsCreatedAfterStartAreSampled) {
  constexpr std::size_t kPages = 64;
  TouchChild child(kPages);
  auto source = make_perf_fault_source(SourceOptions{});
  source->start({child.pid()});

  child.touch(0, kPages, /*on_new_thread=*/true);

  std::vector<AccessSample> samples;
  poll_until(*source, samples,
             [&](const PollResult&) { return by_page(child, kPages, samples).size() == kPages; });
  auto pages = by_page(child, kPages, samples);
  ASSERT_EQ(pages.size(), kPages);
  std::set<std::uint32_t> tids;
  for (const auto& [index, s] : pages) {
    EXPECT_EQ(s.pid, static_cast<std::uint32_t>(child.pid()));
    tids.insert(s.tid);
  }
  ASSERT_EQ(tids.size(), 1u) << "one thread touched them all";
  EXPECT_NE(*tids.begin(), static_cast<std::uint32_t>(child.pid())) << "not the main thread";
}

// With one data page and no polling, the ring fills. The kernel counts what
// it could not write and emits PERF_RECORD_LOST with the next record written
// to that same ring after the reader frees space - so a second round of
// touches flushes it, and the child is pinned to one CPU so that second round
// lands in the ring that lost (rings are per CPU).
TEST_F(PerfFaultSource, UnpolledTinyRingReportsLostSamplesAsDrops) {
  constexpr std::size_t kFirst = 2048, kSecond = 16;
  TouchChild child(kFirst + kSecond, /*pin=*/true);
  SourceOptions options;
  options.ring_bytes = kPage;  // one data page: ~100 samples of 40 bytes
  auto source = make_perf_fault_source(options);
  source->start({child.pid()});

  child.touch(0, kFirst);
  std::vector<AccessSample> samples;
  source->poll(samples);  // frees the ring
  child.touch(kFirst, kSecond);
  poll_until(*source, samples, [&](const PollResult&) { return source->counters().drops > 0; });

  SourceCounters c = source->counters();
  auto pages = by_page(child, kFirst + kSecond, samples);
  EXPECT_GT(c.drops, 0u);
  EXPECT_LT(pages.size(), kFirst) << "a 4 KiB ring cannot hold 2048 samples";
  // Every fault is either delivered or counted as lost; the child may fault a
  // few times outside the buffer too (stack, pipe), which adds to both sides.
  EXPECT_GE(pages.size() + c.drops, kFirst + kSecond);
  // Under ASan every eighth page touched also faults in a shadow page.
  const std::size_t shadow = test::kAddressSanitizer ? (kFirst + kSecond) / 8 + 64 : 0;
  EXPECT_LE(pages.size() + c.drops, kFirst + kSecond + 64 + shadow);
  std::cout << "delivered " << pages.size() << " buffer faults, " << c.drops << " lost\n";
}

TEST_F(PerfFaultSource, ChildExitMakesTheSourceInactiveWithTheReason) {
  TouchChild child(4);
  auto source = make_perf_fault_source(SourceOptions{});
  source->start({child.pid()});
  std::vector<AccessSample> samples;
  EXPECT_TRUE(source->poll(samples).active);
  pid_t pid = child.pid();

  child.touch(0, 4);
  child.exit(/*reap=*/false);  // a zombie: its perf events have already hung up
  PollResult r = poll_until(*source, samples, [](const PollResult& p) { return !p.active; });

  EXPECT_FALSE(r.active);
  EXPECT_EQ(r.stopped_reason, "process " + std::to_string(pid) + " exited");
  EXPECT_EQ(by_page(child, 4, samples).size(), 4u) << "samples before the exit still delivered";
  child.exit(/*reap=*/true);
  EXPECT_FALSE(source->poll(samples).active);
  source->stop();
  source->stop();  // idempotent
}

TEST_F(PerfFaultSource, VanishedProcessIsReportedAtStart) {
  pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  auto source = make_perf_fault_source(SourceOptions{});
  try {
    source->start({gone});
    FAIL() << "started on a process that does not exist";
  } catch (const SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "process " + std::to_string(gone) + " not found");
  }
  std::vector<AccessSample> samples;
  EXPECT_FALSE(source->poll(samples).active);
}

TEST(PerfFaultAvailability, GatheredTreeIsNotTheLiveKernel) {
  tier::test::TempDir dir;
  SourceAvailability a = perf_fault_availability(SysRoot(dir.path()));
  EXPECT_FALSE(a.available);
  EXPECT_NE(a.reason.find("not the live system"), std::string::npos) << a.reason;
}

}  // namespace
}  // namespace tier::heat
