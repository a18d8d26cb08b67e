#include "peer_access.hpp"

#include <grp.h>
#include <pwd.h>

#include <algorithm>

namespace tierd {

bool may_change(const Peer& peer, std::optional<gid_t> tier_gid, const std::vector<gid_t>& groups) {
  if (peer.uid == 0) return true;
  if (!tier_gid) return false;
  if (peer.gid == *tier_gid) return true;
  return std::find(groups.begin(), groups.end(), *tier_gid) != groups.end();
}

bool may_change(const Peer& peer) {
  if (peer.uid == 0) return true;
  std::vector<char> buffer(16384);
  group group_entry{};
  group* found_group = nullptr;
  if (getgrnam_r(kControlGroup, &group_entry, buffer.data(), buffer.size(), &found_group) != 0 ||
      found_group == nullptr) {
    return false;  // no group `tier` on this machine: root only
  }
  const gid_t tier_gid = found_group->gr_gid;
  passwd user{};
  passwd* found_user = nullptr;
  std::vector<gid_t> groups;
  if (getpwuid_r(peer.uid, &user, buffer.data(), buffer.size(), &found_user) == 0 &&
      found_user != nullptr) {
    int count = 64;
    groups.resize(static_cast<std::size_t>(count));
    if (getgrouplist(found_user->pw_name, found_user->pw_gid, groups.data(), &count) < 0) {
      groups.resize(static_cast<std::size_t>(count));
      getgrouplist(found_user->pw_name, found_user->pw_gid, groups.data(), &count);
    }
    groups.resize(static_cast<std::size_t>(std::max(count, 0)));
  }
  return may_change(peer, tier_gid, groups);
}

}  // namespace tierd
