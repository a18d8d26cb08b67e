// Present-page runs (libtier/src/memory/present_pages.hpp): the pure widening,
// the pagemap-entry reader on a fixture pagemap, PAGEMAP_SCAN on this test's
// own sparse mapping, and scan_residency listing a sparse mapping's pages
// (what `tierctl migrate` moves) at the cost of its present pages.
#include "memory/present_pages.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "memory_fakes.hpp"
#include "test_support.hpp"
#include "tier/memory/residency.hpp"

namespace tier {
namespace {

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t kMiB = 1 << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs(const std::vector<AddressRun>& runs) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const AddressRun& run : runs) out.emplace_back(run.start, run.end);
  return out;
}

TEST(WidenRuns, WholeUnitsClampedAndMerged) {
  const std::uint64_t base = 0x7f0000000000;
  std::vector<AddressRun> runs = {
      {base + 4 * kPage, base + 5 * kPage},                // in the first 2 MiB
      {base + 2 * kMiB - kPage, base + 2 * kMiB + kPage},  // straddles into the second
      {base + 10 * kMiB, base + 10 * kMiB + kPage},        // alone in the sixth
  };
  // Clamped to a window starting inside the first unit: merged first two.
  auto widened = widen_runs(runs, 2 * kMiB, base + kPage, base + 11 * kMiB);
  EXPECT_EQ(pairs(widened),
            (std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                {base + kPage, base + 4 * kMiB}, {base + 10 * kMiB, base + 11 * kMiB}}));
  EXPECT_TRUE(widen_runs({}, 2 * kMiB, base, base + kGiB).empty());
  // A run outside the window gives nothing.
  EXPECT_TRUE(
      widen_runs({{base + 20 * kMiB, base + 21 * kMiB}}, 2 * kMiB, base, base + kMiB).empty());
}

// A fixture pagemap: a plain file, so PAGEMAP_SCAN answers ENOTTY and only
// the entry reader can say anything.
void write_entries(const std::string& path, const std::vector<std::uint64_t>& present_pages) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  for (std::uint64_t page : present_pages) {
    const std::uint64_t entry = (1ull << 63) | 0x1234;  // present, some PFN
    ASSERT_EQ(::pwrite(fd, &entry, sizeof entry, static_cast<off_t>(page / kPage * 8)), 8);
  }
  ::close(fd);
}

TEST(FindPresentPages, EntryReaderOnAFixturePagemap) {
  test::TempDir dir;
  const std::uint64_t base = 0x7f0000000000;
  test::write_text_file(dir.path() / "proc/77/maps", "");
  write_entries((dir.path() / "proc/77/pagemap").string(),
                {base, base + kPage, base + 300 * kPage, base + 2 * kGiB - kPage});
  int error = 0;
  SysRoot root(dir.path());
  EXPECT_FALSE(find_present_pages(root, 77, base, base + 2 * kGiB, false, error));
  EXPECT_EQ(error, ENOTTY);
  auto present = find_present_pages(root, 77, base, base + 2 * kGiB, true, error);
  ASSERT_TRUE(present) << error;
  EXPECT_FALSE(present->from_scan_ioctl);
  EXPECT_EQ(pairs(present->runs), (std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                                      {base, base + 2 * kPage},
                                      {base + 300 * kPage, base + 301 * kPage},
                                      {base + 2 * kGiB - kPage, base + 2 * kGiB}}));
  EXPECT_FALSE(find_present_pages(root, 78, base, base + kGiB, true, error));
  EXPECT_EQ(error, ENOENT);
}

// An 8 GiB reservation of this test with three 4 KiB pages touched.
class SparseBuffer : public ::testing::Test {
 protected:
  static constexpr std::size_t kReserved = 8ull << 30;
  void SetUp() override {
    map_ = static_cast<char*>(mmap(nullptr, kReserved, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    ASSERT_NE(map_, MAP_FAILED);
    madvise(map_, kReserved, MADV_NOHUGEPAGE);  // exact 4 KiB pages
    for (std::uint64_t offset : kTouched) map_[offset] = 1;
  }
  void TearDown() override {
    if (map_ != MAP_FAILED) munmap(map_, kReserved);
  }
  std::uint64_t start() const { return reinterpret_cast<std::uint64_t>(map_); }

  static constexpr std::uint64_t kTouched[3] = {0, 5 * kPage, 6 * kGiB};
  char* map_ = static_cast<char*>(MAP_FAILED);
};

TEST_F(SparseBuffer, PageTablesGiveExactlyTheTouchedPages) {
  int error = 0;
  auto present = find_present_pages(SysRoot("/"), getpid(), start(), start() + kReserved,
                                    /*allow_read=*/true, error);
  ASSERT_TRUE(present) << error;
  EXPECT_EQ(pairs(present->runs), (std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                                      {start(), start() + kPage},
                                      {start() + 5 * kPage, start() + 6 * kPage},
                                      {start() + 6 * kGiB, start() + 6 * kGiB + kPage}}));
  // This build machine's kernel (6.18) has PAGEMAP_SCAN; an older one reads
  // entries and must give the same runs.
  std::cout << "[ info ] present pages from "
            << (present->from_scan_ioctl ? "PAGEMAP_SCAN" : "pagemap entries") << "\n";
}

TEST_F(SparseBuffer, ResidencyListsItsPagesAtTheCostOfWhatIsPresent) {
  ResidencyOptions options;
  options.keep_pages = true;
  options.range = {{start(), start() + kReserved}};
  auto report = scan_residency(SysRoot("/"), real_memory_syscalls(), getpid(), options);
  ASSERT_EQ(report.pages.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(report.pages[i].address, start() + kTouched[i]);
    EXPECT_EQ(report.pages[i].size, kPage);
    EXPECT_EQ(report.pages[i].node, 0u);
  }
  EXPECT_EQ(report.page_table_scans, 1u);
  // At most the two 2 MiB spans around them, not 2 M entries.
  EXPECT_LE(report.queried_pages, 2 * 512u);
  EXPECT_EQ(report.resident_bytes(), 3 * kPage);
  EXPECT_EQ(report.not_resident_bytes, kReserved - 3 * kPage);
}

TEST_F(SparseBuffer, MigrateWithoutARangeStillGetsItsPages) {
  ResidencyOptions options;
  options.keep_pages = true;  // what tierctl migrate asks for
  auto report = scan_residency(SysRoot("/"), real_memory_syscalls(), getpid(), options);
  std::vector<std::uint64_t> listed;
  for (const ResidentPage& page : report.pages) {
    if (page.address >= start() && page.address < start() + kReserved)
      listed.push_back(page.address);
  }
  EXPECT_EQ(listed, (std::vector<std::uint64_t>{start(), start() + 5 * kPage, start() + 6 * kGiB}));
  for (const std::string& warning : report.warnings) {
    EXPECT_EQ(warning.find("sparse mapping "), std::string::npos) << warning;
  }
  EXPECT_LT(report.queried_pages, kReserved / kPage / 4);
}

}  // namespace
}  // namespace tier
