// FirstEvidence: how soon after tierd listed a workload it had heat samples
// and promoted a byte of it, as status reports them.
#include "placement/first_evidence.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tierd {
namespace {

TEST(FirstEvidence, SecondsAfterListingAndNullUntilItHappens) {
  FirstEvidence first;
  first.listed("w", 100.0);
  boost::json::object doc = first.workload_json("w");
  EXPECT_TRUE(doc.at("first_samples_after_s").is_null());
  EXPECT_TRUE(doc.at("first_promotion_after_s").is_null());

  first.sampled("w", 101.25);
  first.promoted("w", 102.5);
  doc = first.workload_json("w");
  EXPECT_DOUBLE_EQ(doc.at("first_samples_after_s").as_double(), 1.25);
  EXPECT_DOUBLE_EQ(doc.at("first_promotion_after_s").as_double(), 2.5);
}

TEST(FirstEvidence, OnlyTheFirstOfEachCountsUntilTheWorkloadIsForgotten) {
  FirstEvidence first;
  first.listed("w", 100.0);
  first.listed("w", 105.0);  // every epoch lists it again
  first.sampled("w", 101.0);
  first.sampled("w", 103.0);
  first.promoted("w", 104.0);
  first.promoted("w", 109.0);
  boost::json::object doc = first.workload_json("w");
  EXPECT_DOUBLE_EQ(doc.at("first_samples_after_s").as_double(), 1.0);
  EXPECT_DOUBLE_EQ(doc.at("first_promotion_after_s").as_double(), 4.0);

  first.forget("w");  // gone; a new workload with the id starts over
  first.listed("w", 200.0);
  first.promoted("w", 200.5);
  doc = first.workload_json("w");
  EXPECT_TRUE(doc.at("first_samples_after_s").is_null());
  EXPECT_DOUBLE_EQ(doc.at("first_promotion_after_s").as_double(), 0.5);
}

TEST(FirstEvidence, AWorkloadNeverListedHasNoTimes) {
  FirstEvidence first;
  first.promoted("w", 10.0);  // without a listing there is nothing to count from
  const boost::json::object doc = first.workload_json("w");
  EXPECT_TRUE(doc.at("first_promotion_after_s").is_null());
  EXPECT_TRUE(first.workload_json("unknown").at("first_samples_after_s").is_null());
}

// A move outcome or heat view that arrives after its workload was dropped
// does not carry over to a new workload that later gets the same id.
TEST(FirstEvidence, EventsOfAForgottenWorkloadAreNotKeptForTheNextOne) {
  FirstEvidence first;
  first.listed("w", 100.0);
  first.forget("w");
  first.sampled("w", 101.0);
  first.promoted("w", 102.0);
  first.listed("w", 300.0);
  const boost::json::object doc = first.workload_json("w");
  EXPECT_TRUE(doc.at("first_samples_after_s").is_null());
  EXPECT_TRUE(doc.at("first_promotion_after_s").is_null());
}

}  // namespace
}  // namespace tierd
