// tierd's residency scans: the duty cycle's credit, the order workloads are
// read in, and tierd's own moves applied to a workload's figures.
#include "residency_plan.hpp"

#include <gtest/gtest.h>

namespace tierd {
namespace {

using Residency = std::map<std::string, std::map<unsigned, std::uint64_t>>;

TEST(ScanDuty, StartsFullAndAccruesItsShareOfWallTimeUpToTheCap) {
  ScanDuty duty(0.01, 0.5);
  duty.accrue(100.0);
  EXPECT_DOUBLE_EQ(duty.credit_s(), 0.5);
  duty.spend(0.5);
  EXPECT_FALSE(duty.may_scan());
  duty.accrue(110.0);  // 10 s at 1 %: 0.1 s of scanning
  EXPECT_NEAR(duty.credit_s(), 0.1, 1e-12);
  duty.accrue(1000.0);  // long idle: no more than the cap
  EXPECT_DOUBLE_EQ(duty.credit_s(), 0.5);
}

TEST(ScanDuty, OneLongScanIsPaidBackOverTheFollowingSeconds) {
  ScanDuty duty(0.01, 0.5);
  duty.accrue(0.0);
  duty.spend(2.5);  // a scan of 2.5 s (768 MiB under the latency model)
  EXPECT_NEAR(duty.credit_s(), -2.0, 1e-12);
  duty.accrue(199.0);
  EXPECT_FALSE(duty.may_scan()) << "credit " << duty.credit_s();
  duty.accrue(201.0);
  EXPECT_TRUE(duty.may_scan()) << "credit " << duty.credit_s();
}

TEST(ScanDuty, AClockThatDoesNotAdvanceAddsNothing) {
  ScanDuty duty(0.01, 0.5);
  duty.accrue(50.0);
  duty.spend(0.4);
  duty.accrue(40.0);  // earlier than the last call
  duty.accrue(50.0);
  EXPECT_NEAR(duty.credit_s(), 0.1, 1e-12);
}

TEST(ResidencyOrder, NewFirstThenStaleThenLongestUnread) {
  const std::vector<std::string> ids{"a", "b", "c", "d", "e"};
  const Residency residency{{"a", {{0, 1}}}, {"b", {{0, 1}}}, {"d", {{0, 1}}}, {"e", {{0, 1}}}};
  const std::map<std::string, double> scanned{{"a", 30}, {"b", 10}, {"d", 20}, {"e", 5}};
  const std::vector<ResidencyTurn> order = residency_order(ids, residency, scanned, {"d"}, {});
  ASSERT_EQ(order.size(), 5u);
  EXPECT_EQ(order[0].workload_id, "c");  // never read
  EXPECT_TRUE(order[0].always);
  EXPECT_EQ(order[1].workload_id, "d");  // stale
  EXPECT_FALSE(order[1].always);
  EXPECT_EQ(order[2].workload_id, "e");  // then by last scan: 5, 10, 30
  EXPECT_EQ(order[3].workload_id, "b");
  EXPECT_EQ(order[4].workload_id, "a");
  for (std::size_t i = 1; i < order.size(); ++i) EXPECT_FALSE(order[i].always);
}

// Offline suppression's online workloads: read every epoch, after the new
// ones and before the stale, whatever the credit.
TEST(ResidencyOrder, WantedEveryEpochComesRightAfterTheNewOnes) {
  const std::vector<std::string> ids{"a", "b", "c", "d"};
  const Residency residency{{"a", {{0, 1}}}, {"b", {{0, 1}}}, {"d", {{0, 1}}}};
  const std::map<std::string, double> scanned{{"a", 10}, {"b", 30}, {"d", 20}};
  const std::vector<ResidencyTurn> order =
      residency_order(ids, residency, scanned, {"a"}, {"b", "c"});
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0].workload_id, "c");  // never read (and wanted: read once)
  EXPECT_TRUE(order[0].always);
  EXPECT_EQ(order[1].workload_id, "b");  // wanted every epoch, though read last
  EXPECT_TRUE(order[1].always);
  EXPECT_EQ(order[2].workload_id, "a");  // stale
  EXPECT_FALSE(order[2].always);
  EXPECT_EQ(order[3].workload_id, "d");
  EXPECT_FALSE(order[3].always);
}

TEST(ResidencyOrder, EveryNewWorkloadIsAFirstTurnInRegistryOrder) {
  const std::vector<ResidencyTurn> order = residency_order({"x", "y", "z"}, {}, {}, {}, {});
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].workload_id, "x");
  EXPECT_EQ(order[1].workload_id, "y");
  EXPECT_EQ(order[2].workload_id, "z");
  for (const ResidencyTurn& turn : order) EXPECT_TRUE(turn.always);
}

TEST(ShiftResidency, MovesBytesFromTheSourceToTheTarget) {
  std::map<unsigned, std::uint64_t> bytes{{0, 100}, {2, 900}};
  shift_residency(bytes, 2, 0, 300);
  EXPECT_EQ(bytes, (std::map<unsigned, std::uint64_t>{{0, 400}, {2, 600}}));
}

TEST(ShiftResidency, NeverMovesMoreThanTheSourceHolds) {
  std::map<unsigned, std::uint64_t> bytes{{0, 100}, {2, 50}};
  shift_residency(bytes, 2, 0, 300);  // the kernel moved some meanwhile
  EXPECT_EQ(bytes, (std::map<unsigned, std::uint64_t>{{0, 150}}));
  shift_residency(bytes, 3, 0, 10);  // nothing known on node 3: unchanged
  EXPECT_EQ(bytes, (std::map<unsigned, std::uint64_t>{{0, 150}}));
  shift_residency(bytes, 0, 0, 10);  // to where it is: unchanged
  EXPECT_EQ(bytes, (std::map<unsigned, std::uint64_t>{{0, 150}}));
}

}  // namespace
}  // namespace tierd
