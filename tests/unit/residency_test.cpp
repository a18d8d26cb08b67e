// Residency: maps/smaps parsing, per-node summaries (4 KiB, THP, hugetlb),
// scans through a fixture /proc and a fake move_pages, and a live scan of
// this test's own pages.
#include "tier/memory/residency.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "memory_fakes.hpp"
#include "test_support.hpp"

namespace tier {
namespace {

const std::string kFixture = std::string(TIER_FIXTURES) + "/proc/residency";
constexpr std::uint64_t kAnon = 0x7f0000000000;
constexpr std::uint64_t kHuge = 0x7f0001000000;
constexpr std::uint64_t kMiB = 1 << 20;

TEST(ParseMaps, FieldsAndPaths) {
  auto mappings = parse_maps(
      "55d0c0000000-55d0c0002000 r-xp 00001000 fd:01 1234       /usr/bin/my worker\n"
      "7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
      "garbage line\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0   [vsyscall]\n");
  ASSERT_EQ(mappings.size(), 3u);
  EXPECT_EQ(mappings[0].start, 0x55d0c0000000u);
  EXPECT_EQ(mappings[0].end, 0x55d0c0002000u);
  EXPECT_EQ(mappings[0].perms, "r-xp");
  EXPECT_EQ(mappings[0].offset, 0x1000u);
  EXPECT_EQ(mappings[0].inode, 1234u);
  EXPECT_EQ(mappings[0].path, "/usr/bin/my worker");
  EXPECT_FALSE(mappings[0].rss_bytes.has_value());
  EXPECT_TRUE(mappings[1].anonymous());
  EXPECT_EQ(mappings[1].path, "");
  EXPECT_TRUE(skip_mapping(mappings[2]));
  Mapping vdso;
  vdso.path = "[vdso]";
  EXPECT_TRUE(skip_mapping(vdso));
  vdso.path = "[vvar_vclock]";
  EXPECT_TRUE(skip_mapping(vdso));
  EXPECT_FALSE(skip_mapping(mappings[1]));
}

TEST(ParseSmaps, FixtureFields) {
  auto mappings = parse_smaps(test::read_text_file(kFixture + "/proc/4242/smaps"));
  ASSERT_EQ(mappings.size(), 6u);
  EXPECT_EQ(mappings[0].rss_bytes, 8u * 1024);
  EXPECT_EQ(mappings[1].anon_huge_bytes, 4 * kMiB);
  EXPECT_EQ(mappings[1].kernel_page_size, 4096u);
  EXPECT_TRUE(mappings[2].hugetlb());
  EXPECT_EQ(mappings[2].kernel_page_size, 2 * kMiB);
  EXPECT_EQ(mappings[2].hugetlb_bytes, 4 * kMiB);
  EXPECT_EQ(mappings[2].path, "/anon_hugepage (deleted)");
  EXPECT_EQ(mappings[3].rss_bytes, 0u);
  EXPECT_EQ(mappings[4].path, "[stack]");
  EXPECT_EQ(mappings[5].path, "[vsyscall]");
}

TEST(SummarizeMapping, BasePagesAndNotResident) {
  Mapping mapping;
  mapping.start = 0x1000;
  mapping.end = 0x6000;
  auto summary = summarize_mapping(mapping, {0, 1, -ENOENT, 1, -EFAULT});
  EXPECT_EQ(summary.nodes[0].pages_4k, 1u);
  EXPECT_EQ(summary.nodes[1].pages_4k, 2u);
  EXPECT_EQ(summary.nodes[1].bytes, 2u * 4096);
  EXPECT_EQ(summary.nodes[1].huge_bytes, 0u);
  EXPECT_EQ(summary.not_resident_bytes, 2u * 4096);
}

TEST(SummarizeMapping, ThpChunksUpToSmapsCount) {
  Mapping mapping;
  mapping.start = 0x200000;
  mapping.end = 0x200000 + 3 * 2 * kMiB;  // three aligned 2 MiB chunks
  mapping.anon_huge_bytes = 2 * kMiB;     // smaps: only one of them is a THP
  std::vector<int> statuses(3 * 512, 0);
  std::vector<ResidentPage> pages;
  auto summary = summarize_mapping(mapping, statuses, &pages);
  EXPECT_EQ(summary.nodes[0].bytes, 6 * kMiB);
  EXPECT_EQ(summary.nodes[0].huge_bytes, 2 * kMiB);
  EXPECT_EQ(summary.nodes[0].pages_4k, 1024u);
  ASSERT_EQ(pages.size(), 1u + 1024u);
  EXPECT_EQ(pages[0].size, 2 * kMiB);
  EXPECT_EQ(pages[1].size, 4096u);
}

TEST(SummarizeMapping, SplitChunkIsNotAThp) {
  Mapping mapping;
  mapping.start = 0x200000;
  mapping.end = 0x400000;
  mapping.anon_huge_bytes = 2 * kMiB;
  std::vector<int> statuses(512, 1);
  statuses[7] = 0;  // one page elsewhere: not one huge page
  auto summary = summarize_mapping(mapping, statuses);
  EXPECT_EQ(summary.nodes[1].huge_bytes, 0u);
  EXPECT_EQ(summary.nodes[1].pages_4k, 511u);
  EXPECT_EQ(summary.nodes[0].pages_4k, 1u);
}

TEST(SummarizeMapping, HugetlbCountedAtFullSize) {
  Mapping mapping;
  mapping.start = kHuge;
  mapping.end = kHuge + 3 * 2 * kMiB;
  mapping.kernel_page_size = 2 * kMiB;
  auto summary = summarize_mapping(mapping, {2, -ENOENT, 2});
  EXPECT_EQ(summary.nodes[2].bytes, 4 * kMiB);
  EXPECT_EQ(summary.nodes[2].huge_bytes, 4 * kMiB);
  EXPECT_EQ(summary.nodes[2].pages_4k, 0u);
  EXPECT_EQ(summary.not_resident_bytes, 2 * kMiB);
}

test::FakeMemorySyscalls fixture_pages() {
  test::FakeMemorySyscalls fake;
  fake.node_of[0x55d0c0000000] = 0;
  fake.node_of[0x55d0c0001000] = 0;
  for (std::uint64_t a = kAnon; a < kAnon + 4 * kMiB; a += 4096) fake.node_of[a] = 1;  // 2 THPs
  fake.node_of[kAnon + 4 * kMiB] = 0;
  fake.node_of[kAnon + 4 * kMiB + 4096] = 0;
  fake.node_of[kHuge] = 0;
  fake.node_of[kHuge + 2 * kMiB] = 1;
  fake.node_of[0x7ffd00001000] = 0;
  fake.node_of[0x7ffd00002000] = 0;
  return fake;
}

TEST(ScanResidency, FixtureProcWithFakeKernel) {
  auto fake = fixture_pages();
  ResidencyOptions options;
  options.batch_pages = 1024;
  auto report = scan_residency(SysRoot(kFixture), fake, 4242, options);
  // [vsyscall] and the Rss 0 mapping are never queried.
  ASSERT_EQ(report.mappings.size(), 4u);
  EXPECT_EQ(report.nodes[0].pages_4k, 6u);
  EXPECT_EQ(report.nodes[0].huge_bytes, 2 * kMiB);
  EXPECT_EQ(report.nodes[0].bytes, 6u * 4096 + 2 * kMiB);
  EXPECT_EQ(report.nodes[1].pages_4k, 0u);
  EXPECT_EQ(report.nodes[1].huge_bytes, 6 * kMiB);
  EXPECT_EQ(report.nodes[1].bytes, 6 * kMiB);
  // 2 + 2048 + 2 + 3 queries; 2048 anon pages in batches of 1024.
  EXPECT_EQ(report.queried_pages, 2u + 2048u + 2u + 3u);
  EXPECT_EQ(report.syscalls, 1u + 2u + 1u + 1u);
  EXPECT_EQ(report.not_resident_bytes, (2048u - 1026u) * 4096 + 4096);

  std::vector<std::string> warnings;
  TopologyData data;
  data.nodes.resize(1);
  data.nodes[0].id = 0;
  auto tiers = bytes_per_tier(report.nodes, Topology(data), &warnings);
  EXPECT_EQ(tiers[0], report.resident_bytes());
  ASSERT_EQ(warnings.size(), 1u);  // node 1 is unknown to that topology
}

TEST(ScanResidency, RangeAndKeepPages) {
  auto fake = fixture_pages();
  ResidencyOptions options;
  options.range = {{kAnon + 4 * kMiB, kHuge + 1}};
  options.keep_pages = true;
  auto report = scan_residency(SysRoot(kFixture), fake, 4242, options);
  ASSERT_EQ(report.pages.size(), 3u);  // two 4 KiB pages, one 2 MiB huge page
  EXPECT_EQ(report.pages[0].address, kAnon + 4 * kMiB);
  EXPECT_EQ(report.pages[2].address, kHuge);
  EXPECT_EQ(report.pages[2].size, 2 * kMiB);
  EXPECT_EQ(report.resident_bytes(), 2 * 4096 + 2 * kMiB);
}

TEST(ScanResidency, MapsFallbackAndErrors) {
  test::TempDir dir;
  test::write_text_file(dir.path() / "proc/7/maps",
                        test::read_text_file(kFixture + "/proc/4242/maps"));
  auto fake = fixture_pages();
  auto report = scan_residency(SysRoot(dir.path()), fake, 7);
  // Without smaps: every mapping but [vsyscall] is queried, all 4 KiB.
  EXPECT_EQ(report.mappings.size(), 5u);
  EXPECT_EQ(report.nodes[0].huge_bytes, 0u);
  EXPECT_EQ(report.nodes[1].pages_4k, 1024u + 1u);  // the hugetlb page seen as 4 KiB

  EXPECT_THROW(scan_residency(SysRoot(dir.path()), fake, 8), ResidencyError);
  fake.fail_call[fake.calls] = ESRCH;
  try {
    scan_residency(SysRoot(dir.path()), fake, 7);
    FAIL() << "expected ResidencyError";
  } catch (const ResidencyError& e) {
    EXPECT_EQ(e.error, ESRCH);
  }
}

TEST(LiveResidency, OwnBufferExactPages) {
  constexpr std::size_t kPages = 300;
  const std::size_t size = kPages * 4096;
  void* buffer =
      mmap(nullptr, size + 4096 * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(buffer, MAP_FAILED);
  // No THP here: the counts must be exact 4 KiB pages.
  madvise(buffer, size + 4096 * 4, MADV_NOHUGEPAGE);
  std::memset(buffer, 1, size);  // the last 4 pages stay untouched
  auto start = reinterpret_cast<std::uint64_t>(buffer);
  ResidencyOptions options;
  options.range = {{start, start + size + 4096 * 4}};
  auto report = scan_residency(SysRoot("/"), real_memory_syscalls(), getpid(), options);
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].pages_4k, kPages);
  EXPECT_EQ(report.nodes[0].bytes, size);
  EXPECT_EQ(report.not_resident_bytes, 4u * 4096);
  munmap(buffer, size + 4096 * 4);
}

TEST(LiveResidency, WholeProcessAllOnNodeZero) {
  auto report = scan_residency(SysRoot("/"), real_memory_syscalls(), getpid());
  ASSERT_FALSE(report.nodes.empty());
  EXPECT_EQ(report.nodes.begin()->first, 0u);
  EXPECT_EQ(report.nodes.size(), 1u);
  EXPECT_GT(report.resident_bytes(), 0u);
}

}  // namespace
}  // namespace tier

namespace tier {
namespace {

TEST(ResidencySparse, ParsesNumaMaps) {
  auto entries = parse_numa_maps(
      "00400000 default file=/bin/x mapped=3 N0=2 N1=1 kernelpagesize_kB=4\n"
      "7f0000000000 bind:2 anon=4 dirty=4 N2=4 kernelpagesize_kB=2048\n"
      "7fff00000000 default\n"
      "garbage line\n");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries.at(0x400000).pages, (std::map<unsigned, std::uint64_t>{{0, 2}, {1, 1}}));
  EXPECT_EQ(entries.at(0x400000).page_size, 4096u);
  EXPECT_EQ(entries.at(0x7f0000000000).page_size, 2u << 20);
  EXPECT_TRUE(entries.at(0x7fff00000000).pages.empty());
}

TEST(ResidencySparse, SparseMeansHugeAddressSpaceLittleResident) {
  Mapping shadow;
  shadow.start = 0x10000000000;
  shadow.end = shadow.start + (16ull << 40);  // 16 TiB, like ASan's shadow
  shadow.rss_bytes = 8 << 20;
  EXPECT_TRUE(sparse_mapping(shadow));
  Mapping dense = shadow;
  dense.end = dense.start + (2ull << 30);
  dense.rss_bytes = 1ull << 30;
  EXPECT_FALSE(sparse_mapping(dense));
  Mapping small = shadow;
  small.end = small.start + (512ull << 20);  // under 1 GiB: always scanned
  small.rss_bytes = 4096;
  EXPECT_FALSE(sparse_mapping(small));
}

}  // namespace
}  // namespace tier

namespace tier {
namespace {

TEST(ResidencySparse, LiveSparseMappingCostsItsResidentPagesOnly) {
  constexpr std::size_t kReserved = 8ull << 30;  // 8 GiB of address space
  void* map = mmap(nullptr, kReserved, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  static_cast<char*>(map)[0] = 1;
  static_cast<char*>(map)[kReserved / 2] = 1;
  auto report = scan_residency(SysRoot("/"), real_memory_syscalls(), getpid());
  munmap(map, kReserved);
  // Page by page this would have been 2M move_pages entries.
  EXPECT_LT(report.queried_pages, kReserved / kBasePageSize / 4);
  bool named = false;
  for (const auto& w : report.warnings) named = named || w.find("sparse mapping") == 0;
  EXPECT_TRUE(named);
  const MappingResidency* sparse = nullptr;
  for (const auto& m : report.mappings) {
    if (m.mapping.start == reinterpret_cast<std::uint64_t>(map)) sparse = &m;
  }
  ASSERT_NE(sparse, nullptr);
  ASSERT_EQ(sparse->nodes.count(0), 1u);
  EXPECT_EQ(sparse->nodes.at(0).bytes, 2 * kBasePageSize);  // exactly the two touched pages
}

}  // namespace
}  // namespace tier
