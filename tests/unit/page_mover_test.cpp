// PageMover: accounting of every status, call errors (ESRCH mid-move, EPERM),
// cancel, low free memory, rate limit, huge units; and a live move of this
// test's own pages to node 0 (the only node here).
#include "tier/memory/page_mover.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>
#include <mutex>
#include <set>
#include <thread>

#include <cstring>

#include "memory_fakes.hpp"

namespace tier {
namespace {

constexpr std::uint64_t kBase = 0x7f0000000000;

std::vector<PageUnit> pages(std::size_t count, std::uint64_t size = 4096) {
  std::vector<PageUnit> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back({kBase + i * size, size, std::nullopt});
  return out;
}

test::FakeMemorySyscalls on_node(std::size_t count, int node, std::uint64_t size = 4096) {
  test::FakeMemorySyscalls fake;
  for (std::size_t i = 0; i < count; ++i) fake.node_of[kBase + i * size] = node;
  return fake;
}

void expect_complete(const MoveReport& report) {
  EXPECT_EQ(report.pages.total(), report.requested_pages);
  EXPECT_EQ(report.bytes.total(), report.requested_bytes);
}

TEST(PageMover, MovesAndCountsAlreadyThere) {
  auto fake = on_node(10, 2);
  fake.node_of[kBase + 3 * 4096] = 0;  // already on the target
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 4;
  auto report = mover.move(1, pages(10), 0, options);
  EXPECT_EQ(report.pages.moved, 9u);
  EXPECT_EQ(report.pages.already_there, 1u);
  EXPECT_EQ(report.bytes.moved, 9u * 4096);
  EXPECT_EQ(report.stop_reason, StopReason::completed);
  EXPECT_EQ(fake.move_calls, 3);
  expect_complete(report);
}

TEST(PageMover, EveryPerPageStatus) {
  auto fake = on_node(8, 2);
  fake.node_of.erase(kBase + 0 * 4096);  // not present before: no move
  fake.move_status[kBase + 1 * 4096] = -EBUSY;
  fake.move_status[kBase + 2 * 4096] = -ENOMEM;
  fake.move_status[kBase + 3 * 4096] = -EFAULT;
  fake.move_status[kBase + 4 * 4096] = -EACCES;
  fake.move_status[kBase + 5 * 4096] = -EIO;
  fake.move_status[kBase + 6 * 4096] = 2;  // still elsewhere, no error
  PageMover mover(fake);
  auto report = mover.move(1, pages(8), 0);
  EXPECT_EQ(report.pages.not_present, 2u);
  EXPECT_EQ(report.pages.busy, 2u);
  EXPECT_EQ(report.pages.no_memory, 1u);
  EXPECT_EQ(report.pages.permission, 1u);
  EXPECT_EQ(report.pages.other, 1u);
  EXPECT_EQ(report.pages.moved, 1u);
  EXPECT_EQ(report.stop_reason, StopReason::completed);
  expect_complete(report);
}

TEST(PageMover, PartialFailureWithoutStatusesIsRequeried) {
  auto fake = on_node(4, 2);
  fake.leave_unset[kBase + 2 * 4096] = true;  // rc > 0, status slot untouched, page stays
  PageMover mover(fake);
  auto report = mover.move(1, pages(4), 0);
  EXPECT_EQ(report.pages.moved, 3u);
  EXPECT_EQ(report.pages.busy, 1u);
  expect_complete(report);
}

TEST(PageMover, ProcessExitsMidMove) {
  auto fake = on_node(10, 1);
  fake.fail_call[3] = ESRCH;  // batch 1: query+move; batch 2: query ok, move → ESRCH
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 4;
  auto report = mover.move(1, pages(10), 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::process_gone);
  EXPECT_EQ(report.pages.moved, 4u);
  EXPECT_EQ(report.pages.process_gone, 6u);
  expect_complete(report);
}

TEST(PageMover, ExitingProcessFailingWithEinvalCountsAsGone) {
  // An exiting process has no mm: the kernel answers EINVAL, not ESRCH.
  auto fake = on_node(10, 1);
  fake.fail_call[3] = EINVAL;
  fake.alive = false;
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 4;
  auto report = mover.move(1, pages(10), 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::process_gone);
  EXPECT_EQ(report.pages.moved, 4u);
  EXPECT_EQ(report.pages.process_gone, 6u);
  EXPECT_EQ(report.stop_detail, "process exited during the move; move_pages: Invalid argument");
  expect_complete(report);
}

TEST(PageMover, EinvalOfALiveProcessIsAnError) {
  auto fake = on_node(4, 1);
  fake.fail_call[1] = EINVAL;
  PageMover mover(fake);
  auto report = mover.move(1, pages(4), 0);
  EXPECT_EQ(report.stop_reason, StopReason::error);
  EXPECT_EQ(report.pages.other, 4u);
  expect_complete(report);
}

TEST(PageMover, TrustsKnownNodesInsteadOfQuerying) {
  auto fake = on_node(8, 1);
  std::vector<PageUnit> units = pages(8);
  for (auto& unit : units) unit.node = 1;
  units[0].node = 0;  // the scan saw it on the target already
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 4;
  auto report = mover.move(1, units, 0, options);
  EXPECT_EQ(report.syscalls, 2u);  // one move per batch, no queries
  EXPECT_EQ(report.pages.already_there, 1u);
  EXPECT_EQ(report.pages.moved, 7u);
  expect_complete(report);
}

// The fake is not thread-safe; shards call it concurrently.
class LockedFake : public MemorySyscalls {
 public:
  explicit LockedFake(test::FakeMemorySyscalls& inner) : inner_(inner) {}
  long move_pages(int pid, unsigned long count, void** pages, const int* nodes, int* status,
                  int flags) override {
    std::lock_guard lock(mutex_);
    return inner_.move_pages(pid, count, pages, nodes, status, flags);
  }
  bool process_alive(int pid) override { return inner_.process_alive(pid); }

 private:
  test::FakeMemorySyscalls& inner_;
  std::mutex mutex_;
};

TEST(PageMover, ShardsAcrossThreadsAccountEveryPage) {
  auto fake = on_node(4096, 1);
  fake.move_status[kBase + 4095 * 4096] = -EBUSY;  // last page, in the second shard
  LockedFake locked(fake);
  PageMover mover(locked);
  MoveOptions options;
  options.threads = 2;
  options.batch_pages = 512;
  auto report = mover.move(1, pages(4096), 0, options);
  EXPECT_EQ(report.pages.moved, 4095u);
  EXPECT_EQ(report.pages.busy, 1u);
  EXPECT_EQ(report.syscalls, 16u);  // 8 batches per shard, query + move each
  EXPECT_EQ(report.stop_reason, StopReason::completed);
  expect_complete(report);
  for (std::size_t i = 0; i < 4095; ++i) EXPECT_EQ(fake.node_of[kBase + i * 4096], 0);
}

TEST(PageMover, FirstShardToStopNamesTheStop) {
  auto fake = on_node(4096, 1);
  fake.alive = false;
  // Calls are serialised by the lock but their order between threads is not:
  // fail every call after the first two, so both shards stop.
  for (int call = 2; call < 64; ++call) fake.fail_call[call] = ESRCH;
  LockedFake locked(fake);
  PageMover mover(locked);
  MoveOptions options;
  options.threads = 2;
  options.batch_pages = 512;
  auto report = mover.move(1, pages(4096), 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::process_gone);
  EXPECT_EQ(report.pages.moved + report.pages.process_gone, 4096u);
  expect_complete(report);
}

// Which threads call move_pages (thread-safe, as LockedFake).
class ThreadRecordingFake : public LockedFake {
 public:
  using LockedFake::LockedFake;
  long move_pages(int pid, unsigned long count, void** pages, const int* nodes, int* status,
                  int flags) override {
    {
      std::lock_guard lock(callers_mutex_);
      callers.insert(std::this_thread::get_id());
    }
    return LockedFake::move_pages(pid, count, pages, nodes, status, flags);
  }
  std::set<std::thread::id> callers;

 private:
  std::mutex callers_mutex_;
};

// One rate needs one pacer: with a rate limit the mover keeps to one thread
// whatever `threads` says. The control run shows the recorder sees shards.
TEST(PageMover, RateLimitKeepsOneThread) {
  MoveOptions options;
  options.threads = 4;  // 4096 pages = 4 x kMinUnitsPerShard: sharded unless rate-limited
  {
    auto fake = on_node(4096, 1);
    ThreadRecordingFake recorder(fake);
    PageMover(recorder).move(1, pages(4096), 0, options);
    ASSERT_EQ(recorder.callers.size(), 4u) << "without a rate limit the move is not sharded";
  }
  auto fake = on_node(4096, 1);
  ThreadRecordingFake recorder(fake);
  double clock = 0;
  options.rate_mbps = 1000;
  options.now = [&] { return clock; };
  options.sleep = [&](double s) { clock += s; };
  auto report = PageMover(recorder).move(1, pages(4096), 0, options);
  EXPECT_EQ(recorder.callers.size(), 1u);
  EXPECT_EQ(report.pages.moved, 4096u);
  expect_complete(report);
}

TEST(PageMover, ProcessGoneAtTheFirstQuery) {
  test::FakeMemorySyscalls fake;
  fake.fail_call[0] = ESRCH;
  PageMover mover(fake);
  auto report = mover.move(1, pages(5), 0);
  EXPECT_EQ(report.stop_reason, StopReason::process_gone);
  EXPECT_EQ(report.pages.process_gone, 5u);
  expect_complete(report);
}

TEST(PageMover, PermissionDenied) {
  auto fake = on_node(6, 1);
  fake.fail_call[1] = EPERM;
  PageMover mover(fake);
  auto report = mover.move(1, pages(6), 0);
  EXPECT_EQ(report.stop_reason, StopReason::permission);
  EXPECT_EQ(report.pages.permission, 6u);
  EXPECT_EQ(report.pages.moved, 0u);
  expect_complete(report);
}

TEST(PageMover, OtherCallErrorSkipsTheRest) {
  auto fake = on_node(8, 1);
  fake.fail_call[1] = ENODEV;  // e.g. the target node is not online
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 4;
  auto report = mover.move(1, pages(8), 7, options);
  EXPECT_EQ(report.stop_reason, StopReason::error);
  EXPECT_EQ(report.pages.other, 4u);
  EXPECT_EQ(report.pages.skipped, 4u);
  EXPECT_NE(report.stop_detail.find("No such device"), std::string::npos);
  expect_complete(report);
}

TEST(PageMover, CancelBetweenBatches) {
  auto fake = on_node(12, 1);
  std::atomic<bool> cancel{false};
  fake.on_call = [&] {
    if (fake.move_calls == 1) cancel.store(true);  // during batch 2, which still completes
  };
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 4;
  options.cancel = &cancel;
  auto report = mover.move(1, pages(12), 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::cancelled);
  EXPECT_EQ(report.pages.moved, 8u);
  EXPECT_EQ(report.pages.skipped, 4u);
  expect_complete(report);
}

TEST(PageMover, StopsBeforeFreeMemoryFallsBelowTheFloor) {
  auto fake = on_node(12, 1);
  std::uint64_t free = 100 * 4096 + 8 * 4096;  // room for two batches above the floor
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 4;
  options.free_floor_bytes = 100 * 4096;
  options.free_bytes = [&]() -> std::optional<std::uint64_t> {
    std::uint64_t now = free;
    free -= 4 * 4096;  // each batch consumes its pages
    return now;
  };
  auto report = mover.move(1, pages(12), 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::low_free_memory);
  EXPECT_EQ(report.pages.moved, 8u);
  EXPECT_EQ(report.pages.skipped, 4u);
  EXPECT_NE(report.stop_detail.find("floor"), std::string::npos);
  expect_complete(report);
}

TEST(PageMover, MovesWhatStillFitsAboveTheFloorThenStops) {
  auto fake = on_node(12, 1);
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 8;
  options.free_floor_bytes = 100 * 4096;
  // Room for 3 pages above the floor: the first batch (8) does not fit whole.
  options.free_bytes = [] { return std::optional<std::uint64_t>(103 * 4096); };
  auto report = mover.move(1, pages(12), 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::low_free_memory);
  EXPECT_EQ(report.pages.moved, 3u);
  EXPECT_EQ(report.pages.skipped, 9u);
  EXPECT_NE(report.stop_detail.find("the 3 that fit moved"), std::string::npos)
      << report.stop_detail;
  expect_complete(report);
}

TEST(PageMover, AlreadyThereNeedsNoFreeMemory) {
  auto fake = on_node(4, 0);
  PageMover mover(fake);
  MoveOptions options;
  options.free_floor_bytes = 1ull << 40;
  options.free_bytes = [] { return std::optional<std::uint64_t>(0); };
  auto report = mover.move(1, pages(4), 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::completed);
  EXPECT_EQ(report.pages.already_there, 4u);
}

// Pages in a mapping the process bound elsewhere (mbind) are never handed
// to move_pages: they stay where they are, counted against_policy with the
// reason, and the rest of the batch moves.
TEST(PageMover, NeverMovesAgainstTheProcesssOwnPolicy) {
  auto fake = on_node(8, 2);
  const ProcessMemoryPolicy policy = parse_process_memory_policy(
      "7f0000000000 default anon=4 N2=4 kernelpagesize_kB=4\n"
      "7f0000004000 bind:2-3 anon=4 N2=4 kernelpagesize_kB=4\n",
      "Mems_allowed_list:\t0-3\n");
  PageMover mover(fake);
  MoveOptions options;
  options.policy = &policy;
  options.threads = 4;  // the refusal comes before any sharding
  auto report = mover.move(1, pages(8), 0, options);
  EXPECT_EQ(report.pages.moved, 4u);
  EXPECT_EQ(report.pages.against_policy, 4u);
  EXPECT_EQ(report.bytes.against_policy, 4u * 4096);
  EXPECT_EQ(report.policy_detail, "memory policy bind:2-3 excludes node 0");
  for (std::size_t i = 4; i < 8; ++i) EXPECT_EQ(fake.node_of[kBase + i * 4096], 2) << i;
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(fake.node_of[kBase + i * 4096], 0) << i;
  EXPECT_EQ(report.stop_reason, StopReason::completed);
  expect_complete(report);

  // A cpuset without the target: nothing is attempted at all.
  const ProcessMemoryPolicy fenced =
      parse_process_memory_policy("7f0000000000 default\n", "Mems_allowed_list:\t2-3\n");
  options.policy = &fenced;
  const int calls_before = fake.calls;
  report = mover.move(1, pages(8), 1, options);
  EXPECT_EQ(report.pages.against_policy, 8u);
  EXPECT_EQ(report.pages.moved, 0u);
  EXPECT_EQ(fake.calls, calls_before);
  EXPECT_EQ(report.policy_detail, "cpuset mems 2-3 exclude node 1");
  expect_complete(report);
}

TEST(PageMover, HugePagesMoveAsOneUnitAtFullSize) {
  constexpr std::uint64_t kHuge = 2 << 20;
  auto fake = on_node(3, 2, kHuge);
  PageMover mover(fake);
  auto report = mover.move(1, pages(3, kHuge), 0);
  EXPECT_EQ(report.requested_pages, 3u);
  EXPECT_EQ(report.pages.moved, 3u);
  EXPECT_EQ(report.bytes.moved, 3 * kHuge);
  expect_complete(report);
}

TEST(PageMover, RateLimitWithinTenPercent) {
  // 64 MiB in 4 MiB batches at 32 MB/s on a fake clock where each syscall
  // takes 2 ms: 2 s.
  auto fake = on_node(16384, 1);
  double clock = 0;
  fake.on_call = [&] { clock += 0.002; };
  PageMover mover(fake);
  MoveOptions options;
  options.batch_pages = 1024;
  options.rate_mbps = 32.0;
  options.now = [&] { return clock; };
  options.sleep = [&](double seconds) { clock += seconds; };
  auto report = mover.move(1, pages(16384), 0, options);
  EXPECT_EQ(report.pages.moved, 16384u);
  EXPECT_NEAR(report.mbps / 32.0, 1.0, 0.1);
  EXPECT_NEAR(report.seconds, 2.0, 0.2);
}

TEST(PageMover, StopReasonNames) {
  EXPECT_STREQ(to_string(StopReason::completed), "completed");
  EXPECT_STREQ(to_string(StopReason::low_free_memory), "low_free_memory");
  EXPECT_STREQ(to_string(StopReason::process_gone), "process_gone");
}

TEST(LivePageMover, OwnPagesToNodeZeroAreAlreadyThere) {
  constexpr std::size_t kPages = 64;
  void* buffer =
      mmap(nullptr, kPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(buffer, MAP_FAILED);
  std::memset(buffer, 1, kPages * 4096);
  std::vector<PageUnit> units;
  for (std::size_t i = 0; i < kPages; ++i) {
    units.push_back({reinterpret_cast<std::uint64_t>(buffer) + i * 4096, 4096, std::nullopt});
  }
  PageMover mover(real_memory_syscalls());
  MoveOptions options;
  watch_node_free_memory(options, SysRoot("/"), 0);
  EXPECT_GT(options.free_floor_bytes, 0u);
  auto report = mover.move(getpid(), units, 0, options);
  EXPECT_EQ(report.stop_reason, StopReason::completed) << report.stop_detail;
  EXPECT_EQ(report.pages.already_there, kPages);
  EXPECT_EQ(report.pages.moved, 0u);
  expect_complete(report);
  munmap(buffer, kPages * 4096);
}

TEST(LivePageMover, MissingNodeIsAnErrorNotACrash) {
  void* buffer = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(buffer, MAP_FAILED);
  std::memset(buffer, 1, 4096);
  PageMover mover(real_memory_syscalls());
  auto report =
      mover.move(getpid(), {{reinterpret_cast<std::uint64_t>(buffer), 4096, std::nullopt}}, 1);
  // This machine has one node: ENODEV from the call (or a per-page error).
  EXPECT_EQ(report.pages.moved, 0u);
  expect_complete(report);
  munmap(buffer, 4096);
}

}  // namespace
}  // namespace tier
