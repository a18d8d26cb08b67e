// Residency totals from numa_maps: the sums of fixture text, a missing
// process, and this test's own pages against the page-by-page scan.
#include "tier/memory/residency_totals.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "test_support.hpp"
#include "tier/memory/residency.hpp"

namespace tier {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
// What the test itself may allocate between two reads (under ASan freed
// memory is quarantined, so every string read touches new pages).
constexpr std::uint64_t kSlack = 4 * kMiB;

TEST(ResidencyTotals, SumsEveryMappingAtItsPageSize) {
  auto bytes = numa_maps_bytes_by_node(
      "00400000 default file=/bin/x mapped=3 N0=2 N1=1 kernelpagesize_kB=4\n"
      "7f0000000000 bind:2 anon=4 dirty=4 N2=4 kernelpagesize_kB=2048\n"
      "7f1000000000 default anon=1024 dirty=1024 N0=512 N2=512 kernelpagesize_kB=4\n"
      "7fff00000000 default\n"
      "garbage line\n");
  EXPECT_EQ(bytes, (std::map<unsigned, std::uint64_t>{
                       {0, 2 * 4096 + 512 * 4096}, {1, 4096}, {2, 4 * 2 * kMiB + 512 * 4096}}));
  EXPECT_TRUE(numa_maps_bytes_by_node("").empty());
}

TEST(ResidencyTotals, ReadsTheProcessUnderTheRootAndTellsAGoneOne) {
  test::TempDir root;
  std::filesystem::create_directories(root.path() / "proc/77");
  std::ofstream(root.path() / "proc/77/numa_maps")
      << "7f0000000000 default anon=3 dirty=3 N1=3 kernelpagesize_kB=4\n";
  std::filesystem::create_directories(root.path() / "proc/78");
  std::ofstream(root.path() / "proc/78/numa_maps");  // a kernel thread: empty

  auto found = resident_bytes_by_node(SysRoot(root.path()), 77);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, (std::map<unsigned, std::uint64_t>{{1, 3 * 4096}}));
  auto empty = resident_bytes_by_node(SysRoot(root.path()), 78);
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  EXPECT_FALSE(resident_bytes_by_node(SysRoot(root.path()), 79).has_value());
}

std::uint64_t total(const std::map<unsigned, std::uint64_t>& bytes) {
  std::uint64_t sum = 0;
  for (const auto& [node, b] : bytes) sum += b;
  return sum;
}

// The kernel's walk and the page-by-page scan agree on this process, and a
// buffer touched between two reads shows up whole in the totals.
TEST(ResidencyTotals, LiveTotalsFollowTheProcessAndMatchTheScan) {
  constexpr std::size_t kSize = 64 * kMiB;
  const auto before = resident_bytes_by_node(SysRoot("/"), getpid());
  ASSERT_TRUE(before.has_value());
  void* buffer = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(buffer, MAP_FAILED);
  std::memset(buffer, 1, kSize);
  const auto after = resident_bytes_by_node(SysRoot("/"), getpid());
  const ResidencyReport scan = scan_residency(SysRoot("/"), real_memory_syscalls(), getpid());
  munmap(buffer, kSize);
  ASSERT_TRUE(after.has_value());
  // The buffer, and little else.
  EXPECT_GE(total(*after), total(*before) + kSize);
  EXPECT_LE(total(*after), total(*before) + kSize + kSlack);
  // Every node the scan saw, and the same bytes but for what came between.
  std::uint64_t scanned = 0;
  for (const auto& [node, residency] : scan.nodes) {
    EXPECT_TRUE(after->contains(node)) << "node " << node;
    scanned += residency.bytes;
  }
  EXPECT_LE(scanned > total(*after) ? scanned - total(*after) : total(*after) - scanned, kSlack);
}

}  // namespace
}  // namespace tier
