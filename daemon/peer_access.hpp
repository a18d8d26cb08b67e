// Who may change things over the control socket: root, or a member of group
// `tier` (docs/api.md, "Who may do what"). The peer's uid/gid come from
// SO_PEERCRED; its supplementary groups from its user's group list.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace tierd {

struct Peer {
  pid_t pid = 0;
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
};

inline constexpr const char* kControlGroup = "tier";

/// The pure decision: uid 0, or the tier group as primary or supplementary.
bool may_change(const Peer& peer, std::optional<gid_t> tier_gid, const std::vector<gid_t>& groups);

/// The live decision: looks up group `tier` and the peer user's groups.
bool may_change(const Peer& peer);

}  // namespace tierd
