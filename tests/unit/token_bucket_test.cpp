// TokenBucket: the pure rate limiter under the PageMover.
#include <gtest/gtest.h>

#include "tier/memory/page_mover.hpp"

namespace tier {
namespace {

TEST(TokenBucket, StartsEmptySoTheFirstTakeWaits) {
  TokenBucket bucket(1000.0, 500.0);
  EXPECT_DOUBLE_EQ(bucket.consume(250.0, 10.0), 0.25);
}

TEST(TokenBucket, RefillsWithTimeUpToCapacity) {
  TokenBucket bucket(1000.0, 500.0);
  bucket.consume(0.0, 0.0);
  EXPECT_DOUBLE_EQ(bucket.consume(400.0, 0.4), 0.0);   // 400 tokens accrued
  EXPECT_DOUBLE_EQ(bucket.consume(600.0, 10.4), 0.1);  // capped at 500 after idling
}

TEST(TokenBucket, DebtIsPaidBack) {
  TokenBucket bucket(100.0, 10.0);
  double t = 0;
  double waited = 0;
  for (int i = 0; i < 100; ++i) {
    double wait = bucket.consume(50.0, t);
    waited += wait;
    t += wait;
  }
  // 5000 bytes at 100 bytes/s from an empty bucket: 50 s.
  EXPECT_NEAR(t, 50.0, 1e-9);
  EXPECT_NEAR(waited, 50.0, 1e-9);
}

// The tick-stepped entry point the `balanced` policy's burst budget uses.
TEST(TokenBucket, RefillStepsByElapsedTimeUpToCapacityOrOneStep) {
  TokenBucket bucket(100.0, 250.0);
  EXPECT_DOUBLE_EQ(bucket.refill(1.0), 100.0);
  EXPECT_DOUBLE_EQ(bucket.refill(2.0), 250.0);  // capped
  bucket.take(200.0);
  EXPECT_DOUBLE_EQ(bucket.tokens(), 50.0);
  EXPECT_DOUBLE_EQ(bucket.refill(-1.0), 50.0);  // time does not run back
  EXPECT_DOUBLE_EQ(bucket.refill(5.0), 500.0);  // a step longer than the capacity: its own worth
  EXPECT_DOUBLE_EQ(bucket.refill(1.0), 250.0);
}

TEST(TokenBucket, AchievedRateWithinTenPercentWhenWorkTakesTime) {
  const double rate = 64.0 * 1024 * 1024;  // 64 MiB/s
  TokenBucket bucket(rate, rate * 0.1);
  double t = 0;
  double moved = 0;
  for (int i = 0; i < 256; ++i) {
    const double chunk = 4.0 * 1024 * 1024;
    t += bucket.consume(chunk, t);
    t += 0.01;  // the move itself takes time; tokens accrue meanwhile
    moved += chunk;
  }
  double achieved = moved / t;
  EXPECT_NEAR(achieved / rate, 1.0, 0.1);
  EXPECT_LE(achieved, rate * 1.0001);
}

}  // namespace
}  // namespace tier
