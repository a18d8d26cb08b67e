// MoveLedger: what status reports of tierd's moves, from MoveReports.
#include "placement/move_ledger.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tierd {
namespace {

namespace json = boost::json;

MoveOutcome outcome(const std::string& id, MigrationDirection direction, unsigned node) {
  MoveOutcome o;
  o.workload_id = id;
  o.direction = direction;
  o.target_node = node;
  o.reason = direction == MigrationDirection::promote ? "promote: hot" : "demote: cold";
  return o;
}

std::uint64_t at(const json::object& doc, const char* key) {
  return doc.at(key).as_uint64();
}

TEST(MoveLedger, PagesNotMovedAreCountedByReasonPerWorkloadAndInTotal) {
  MoveLedger ledger;
  MoveOutcome full = outcome("a", MigrationDirection::promote, 0);
  full.report.pages.moved = 10;
  full.report.bytes.moved = 10 * 4096;
  full.report.pages.no_memory = 30;
  full.report.pages.skipped = 60;
  full.report.stop_reason = tier::StopReason::low_free_memory;
  full.report.stop_detail = "node 0 at its floor";
  EXPECT_EQ(ledger.record(full),
            "promote: hot (40 KiB to node 0); stopped: low_free_memory node 0 at its floor");
  MoveOutcome pinned = outcome("b", MigrationDirection::demote, 2);
  pinned.report.pages.moved = 1;
  pinned.report.bytes.moved = 4096;
  pinned.report.pages.busy = 99;
  pinned.report.pages.process_gone = 7;
  ledger.record(pinned);

  const json::object a = ledger.workload_json("a");
  EXPECT_EQ(at(a, "promoted_pages"), 10u);
  EXPECT_EQ(at(a, "promoted_bytes"), 40960u);
  EXPECT_EQ(at(a, "demoted_pages"), 0u);
  EXPECT_EQ(at(a, "failed_pages"), 30u);
  EXPECT_EQ(at(a.at("not_moved_pages").as_object(), "no_memory"), 30u);
  EXPECT_EQ(at(a.at("not_moved_pages").as_object(), "skipped"), 60u);
  EXPECT_EQ(at(a.at("not_moved_pages").as_object(), "busy"), 0u);
  const json::object b = ledger.workload_json("b");
  EXPECT_EQ(at(b, "demoted_pages"), 1u);
  EXPECT_EQ(at(b, "failed_pages"), 99u);
  EXPECT_EQ(at(b.at("not_moved_pages").as_object(), "busy"), 99u);
  EXPECT_EQ(at(b.at("not_moved_pages").as_object(), "process_gone"), 7u);

  const json::object total = ledger.not_moved_json();
  EXPECT_EQ(at(total, "busy"), 99u);
  EXPECT_EQ(at(total, "no_memory"), 30u);
  EXPECT_EQ(at(total, "process_gone"), 7u);
  EXPECT_EQ(at(total, "skipped"), 60u);
  EXPECT_EQ(at(total, "permission"), 0u);
  EXPECT_EQ(at(total, "other"), 0u);
  EXPECT_EQ(ledger.stops_json(), (json::object{{"low_free_memory", 1}}));
  EXPECT_EQ(ledger.batches(), 2u);
  EXPECT_EQ(ledger.moved_bytes(), 11u * 4096);
}

TEST(MoveLedger, AWorkloadForgottenKeepsTheTotalsAndKeepsFiveReasons) {
  MoveLedger ledger;
  for (int i = 0; i < 7; ++i) {
    MoveOutcome o = outcome("a", MigrationDirection::promote, 0);
    o.reason = "promote " + std::to_string(i);
    o.report.pages.busy = 1;
    ledger.record(o);
  }
  const json::object a = ledger.workload_json("a");
  const json::array& reasons = a.at("last_reasons").as_array();
  ASSERT_EQ(reasons.size(), 5u);
  EXPECT_EQ(reasons.front().as_string(), "promote 2 (0 KiB to node 0)");
  EXPECT_EQ(reasons.back().as_string(), "promote 6 (0 KiB to node 0)");
  ledger.forget("a");
  EXPECT_EQ(at(ledger.workload_json("a"), "failed_pages"), 0u);
  EXPECT_EQ(at(ledger.not_moved_json(), "busy"), 7u);
  EXPECT_EQ(ledger.batches(), 7u);
}

}  // namespace
}  // namespace tierd
