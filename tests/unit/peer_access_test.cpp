// Who may change tierd: the pure decision behind SO_PEERCRED.
#include <gtest/gtest.h>

#include "peer_access.hpp"

namespace tierd {
namespace {

TEST(PeerAccess, RootAlwaysMayChange) {
  EXPECT_TRUE(may_change(Peer{1, 0, 0}, std::nullopt, {}));
  EXPECT_TRUE(may_change(Peer{1, 0, 0}));
}

TEST(PeerAccess, TierGroupAsPrimaryOrSupplementaryMayChange) {
  EXPECT_TRUE(may_change(Peer{1, 1000, 990}, 990, {}));
  EXPECT_TRUE(may_change(Peer{1, 1000, 1000}, 990, {1000, 990, 27}));
}

TEST(PeerAccess, OthersMayNot) {
  EXPECT_FALSE(may_change(Peer{1, 1000, 1000}, 990, {1000, 27}));
  EXPECT_FALSE(may_change(Peer{1, 1000, 1000}, std::nullopt, {1000}));  // no group `tier`
  EXPECT_FALSE(may_change(Peer{}, 990, {}));                            // unknown peer
  // nobody is in no group called tier on a test machine.
  EXPECT_FALSE(may_change(Peer{1, 65534, 65534}));
}

}  // namespace
}  // namespace tierd
