#include "tier/cpu/cpulist.hpp"

#include <gtest/gtest.h>

namespace tier {
namespace {

TEST(CpuList, ParsesRangesAndSingles) {
  auto list = CpuList::parse("0-3,8,10-11\n");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->ids(), (std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(list->to_string(), "0-3,8,10-11");
}

TEST(CpuList, EmptyTextIsEmptySet) {
  auto list = CpuList::parse("  \n");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->empty());
  EXPECT_EQ(list->to_string(), "");
}

TEST(CpuList, RejectsSyntaxErrors) {
  EXPECT_FALSE(CpuList::parse("3-1"));
  EXPECT_FALSE(CpuList::parse("a"));
  EXPECT_FALSE(CpuList::parse("1,,2"));
  EXPECT_FALSE(CpuList::parse("1-"));
}

TEST(CpuList, ParsesMasksWiderThan64Bits) {
  // Word order is most significant first: bit 64 is in the first word.
  auto list = CpuList::parse_mask("00000001,00000000,0000000f");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->ids(), (std::vector<unsigned>{0, 1, 2, 3, 64}));
  EXPECT_FALSE(CpuList::parse_mask("xyz"));
}

TEST(CpuList, DeduplicatesAndSorts) {
  CpuList list({5, 1, 5, 2});
  EXPECT_EQ(list.to_string(), "1-2,5");
  EXPECT_TRUE(list.contains(5));
  EXPECT_FALSE(list.contains(3));
}

}  // namespace
}  // namespace tier
