// The workloads' page-table census (workloads/page_nodes.hpp) against the
// kernel's own answers: every page of a buffer with touched, read-only
// (zero page) and untouched pages gets the status move_pages(2) gives it.
#include "page_nodes.hpp"

#include <gtest/gtest.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

namespace tier_workloads {
namespace {

constexpr std::size_t kPage = 4096;

std::vector<int> kernel_answers(char* base, std::size_t pages) {
  std::vector<void*> addrs(pages);
  std::vector<int> status(pages, 1);
  for (std::size_t i = 0; i < pages; ++i) addrs[i] = base + i * kPage;
  EXPECT_EQ(move_pages(0, pages, addrs.data(), nullptr, status.data(), 0), 0);
  return status;
}

TEST(PageNodes, SameAnswersAsMovePages) {
  // 10 000 pages (over two of the census's 4096-page reads), a third
  // written, a third only read, a third never touched; no THP, so the
  // pattern holds page by page.
  constexpr std::size_t kPages = 10000;
  char* base = static_cast<char*>(
      mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(base, MAP_FAILED);
  madvise(base, kPages * kPage, MADV_NOHUGEPAGE);
  for (std::size_t i = 0; i < kPages; ++i) {
    if (i % 3 == 0) base[i * kPage] = 1;
    if (i % 3 == 1) {
      volatile char sink = base[i * kPage];
      (void)sink;
    }
  }
  PageNodes nodes;
  std::vector<int> status(kPages, 12345);
  nodes.query(base, kPages, status.data());
  const std::vector<int> expected = kernel_answers(base, kPages);
  std::size_t written = 0, zero = 0, absent = 0;
  for (std::size_t i = 0; i < kPages; ++i) {
    ASSERT_EQ(status[i], expected[i]) << "page " << i;
    written += status[i] >= 0;
    zero += status[i] == -EFAULT;
    absent += status[i] == -ENOENT;
  }
  // The pattern is what the kernel saw too: not a vacuous agreement.
  EXPECT_EQ(written, (kPages + 2) / 3);
  EXPECT_EQ(zero, (kPages + 1) / 3);
  EXPECT_EQ(absent, kPages / 3);
  munmap(base, kPages * kPage);
}

// As root with memory blocks in sysfs (this machine, the emulated one) the
// frame numbers place every written page; move_pages answers none of them.
TEST(PageNodes, PagemapPlacesWrittenPagesWithoutTheKernel) {
  if (geteuid() != 0) GTEST_SKIP() << "frame numbers need CAP_SYS_ADMIN";
  constexpr std::size_t kPages = 512;
  char* base = static_cast<char*>(
      mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(base, MAP_FAILED);
  for (std::size_t i = 0; i < kPages; ++i) base[i * kPage] = 1;
  PageNodes nodes;
  std::vector<int> status(kPages, -1);
  nodes.query(base, kPages, status.data());
  EXPECT_EQ(status, kernel_answers(base, kPages));
  EXPECT_EQ(nodes.asked_kernel(), 0u);
  munmap(base, kPages * kPage);
}

}  // namespace
}  // namespace tier_workloads
