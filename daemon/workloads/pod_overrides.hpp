// Per-pod overrides of the Kubernetes QoS mapping: the annotation-style file
// (docs/kubernetes.md). Each [[pod]] entry names pods by exact uid or by a
// regex on the uid and sets any of class, pool and quota — the values a
// `tier.io/class`, `tier.io/pool` and `tier.io/quota` annotation would carry.
//
// Contract: parse() is strict like tierd's config (unknown keys, wrong types,
// bad class/pool/quota, a bad regex, an entry with neither or both of uid and
// match, or one that sets nothing are errors) and every error names
// origin:line and the key ("pods.toml:7: key 'pod[1].pool': ..."). Lookups are
// pure: the first entry matching a uid wins, fields it leaves unset keep the
// QoS mapping's value. Uids are compared in their dash form (a uid copied from
// a systemd slice name, with underscores, is normalised when parsed).
#pragma once

#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/registry.hpp"

namespace tierd {

struct PodOverridesError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One [[pod]] entry. Exactly one of uid and match is non-empty.
struct PodOverride {
  std::string uid;    // exact pod uid, dash form
  std::string match;  // ECMAScript regex, whole-uid match
  std::optional<WorkloadClass> workload_class;
  std::optional<std::string> pool;  // a valid tier::cpu::PoolSpec spelling
  std::optional<Quota> quota;
  std::string where;  // "origin:line" of the entry, for reasons and logs
};

/// The dash form of a pod uid: systemd's slice names spell the uid's dashes as
/// underscores ("1f2e_..." -> "1f2e-..."); hex digits are lowercased.
std::string normalize_pod_uid(std::string_view uid);

class PodOverrides {
 public:
  /// No overrides: every pod keeps its QoS mapping.
  PodOverrides() = default;

  /// Parses TOML text; `origin` names the file in errors. Throws PodOverridesError.
  static PodOverrides parse(const std::string& text, const std::string& origin);
  /// Reads and parses a file; throws PodOverridesError naming an unreadable file.
  static PodOverrides load(const std::string& path);

  /// The first entry matching the pod uid (dash form), or nullptr.
  const PodOverride* find(std::string_view uid) const;
  const std::vector<PodOverride>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<PodOverride> entries_;
  std::vector<std::optional<std::regex>> patterns_;  // entries_[i].match compiled, when set
};

}  // namespace tierd
