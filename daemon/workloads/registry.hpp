// The workload registry: every workload tierd manages, where it came from
// (explicit registration, a watched parent cgroup, a process-name rule), its
// class, priority, pool and fast-tier quota; liveness checks that drop dead
// processes and removed cgroups; and the JSON form saved in state.json.
//
// Contract: the registry never makes a syscall beyond reading /proc and the
// cgroup tree under the SysRoot it is given (tests point it at a directory
// tree). All calls come from the daemon loop (one thread); nothing throws for
// a vanished process or cgroup — those are dropped and reported.
#pragma once

#include <sys/types.h>

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tier/posix/sysroot.hpp"
#include "tier/protocol/workload_class.hpp"

namespace tierd {

struct SurveyMemo;

// One definition of the class vocabulary, shared with libtier's pool layout.
using WorkloadClass = tier::WorkloadClass;
using tier::parse_workload_class;
using tier::to_string;

// "api" | "cgroup" (a watched parent's child) | "rule" | "pod" (kubepods
// discovery) | "discovered" (discovery: workloads.discover)
enum class WorkloadSource { api, cgroup, rule, pod, discovered };
const char* to_string(WorkloadSource s);
/// "api", "cgroup", "rule", "pod", "discovered"; nullopt otherwise.
std::optional<WorkloadSource> parse_workload_source(std::string_view text);

/// Fast-tier quota: none, an absolute byte count, or a percentage of the
/// workload's resident memory.
struct Quota {
  std::optional<std::uint64_t> bytes;
  std::optional<double> percent;  // 0 < percent <= 100
  bool none() const { return !bytes && !percent; }
  bool operator==(const Quota&) const = default;
};
/// "8G", "512M", "1048576", "25%"; "" or "none" → no quota. Throws
/// std::invalid_argument naming the text and the accepted forms.
Quota parse_quota(std::string_view text);
/// Inverse of parse_quota: "" for none, "25%" or a byte count with suffix when exact.
std::string to_string(const Quota& quota);

/// Upper bound of a per-workload migration budget (MB/s), as the policies'.
inline constexpr std::int64_t kMaxBudgetMbps = 100'000;

struct Workload {
  std::string id;    // stable: "pid:1234", "cgroup:/sys/fs/cgroup/x.slice/y", "rule:1234"
  std::string name;  // given, else comm of the pid, else the cgroup's basename
  WorkloadSource source = WorkloadSource::api;
  std::optional<pid_t> pid;      // a process workload
  std::string cgroup;            // a cgroup workload: absolute path (under the SysRoot)
  std::uint64_t start_time = 0;  // /proc/PID/stat field 22 at registration: pid reuse check
  WorkloadClass workload_class = WorkloadClass::normal;
  int priority = 0;             // higher = more important (demoted last)
  std::string pool = "shared";  // CPU pool name (issue 7); stored and reported only
  Quota quota;
  unsigned budget_mbps = 0;  // migration budget for this workload, MB/s; 0 = the policy's only
  std::int64_t registered_unix_s = 0;
  std::string found;  // a discovered workload: how ("anonymous memory 412 MiB >= 64 MiB; ...")
  bool operator==(const Workload&) const = default;
};

/// Why a workload left the registry.
struct DroppedWorkload {
  Workload workload;
  std::string reason;  // "process 1234 exited", "cgroup ... removed", "unregistered", ...
};

struct RegistrationError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// What a client asks for in workloads.register.
struct RegisterRequest {
  std::optional<pid_t> pid;
  std::string cgroup;  // absolute cgroup directory, or relative to the cgroup mount
  std::string name;
  WorkloadClass workload_class = WorkloadClass::normal;
  int priority = 0;
  std::string pool = "shared";
  Quota quota;
  unsigned budget_mbps = 0;
};

/// A configured parent cgroup: each child directory is one workload.
struct CgroupWatch {
  std::string parent;  // absolute path, e.g. /sys/fs/cgroup/kubepods.slice
  WorkloadClass workload_class = WorkloadClass::normal;
  int priority = 0;
  std::string pool = "shared";
  Quota quota;
  unsigned budget_mbps = 0;
  bool operator==(const CgroupWatch&) const = default;
};

/// A configured process-name rule: every process whose comm (or the basename
/// of its exe) matches `match` (an ECMAScript regex, whole-name match)
/// becomes one workload.
struct ProcessRule {
  std::string match;
  WorkloadClass workload_class = WorkloadClass::normal;
  int priority = 0;
  std::string pool = "shared";
  Quota quota;
  unsigned budget_mbps = 0;
  bool operator==(const ProcessRule&) const = default;
};

/// Which units discovery finds: processes, leaf cgroups (plus the processes
/// of the root cgroup, where kernel threads and early boot services live),
/// or `automatic`: leaf cgroups where a cgroup v2 tree is mounted, processes
/// elsewhere.
enum class DiscoverMode { off, automatic, processes, cgroups };
/// "off", "auto", "processes", "cgroups".
const char* to_string(DiscoverMode mode);
std::optional<DiscoverMode> parse_discover_mode(std::string_view text);

/// The default threshold: a workload below it cannot gain enough from
/// placement to pay for watching it (docs/placement.md, "Discovery").
inline constexpr std::uint64_t kDefaultDiscoverMinBytes = std::uint64_t{64} << 20;

struct DiscoverySettings {
  DiscoverMode mode = DiscoverMode::off;
  std::uint64_t min_bytes = kDefaultDiscoverMinBytes;  // found at this much anonymous memory
  pid_t self = 0;                                      // tierd itself is never a workload
  bool operator==(const DiscoverySettings&) const = default;
};

class PodOverrides;

/// Kubernetes-shaped discovery (docs/kubernetes.md): every pod under `root`
/// (e.g. /sys/fs/cgroup/kubepods.slice) is one cgroup workload whose class,
/// pool and quota come from its QoS class and CPU limit, or from `overrides`.
struct KubepodsWatch {
  std::string root;
  std::shared_ptr<const PodOverrides> overrides;  // null: none
};

class Registry {
 public:
  /// Reads /proc and the cgroup tree under `root` (tierd: Options::root).
  explicit Registry(tier::SysRoot root);

  /// Validates and adds; throws RegistrationError (no such process, kernel
  /// thread, not a cgroup directory, neither or both of pid/cgroup, already
  /// registered). Returns the stored workload.
  const Workload& register_workload(const RegisterRequest& request, std::int64_t now_unix_s);
  /// Removes by id, or by "PID" digits for a pid workload; nullopt when absent.
  std::optional<DroppedWorkload> unregister(const std::string& id_or_pid);

  /// Replaces the watch/rule configuration (start and reload).
  void configure(std::vector<CgroupWatch> watches, std::vector<ProcessRule> rules);
  /// Turns kubepods discovery on (a watch) or off (nullopt: pod workloads
  /// are dropped at the next refresh).
  void configure_kubepods(std::optional<KubepodsWatch> watch);
  /// Turns discovery on (mode other than off) or off (its workloads are
  /// dropped at the next refresh).
  void configure_discovery(DiscoverySettings settings);

  /// What the last refresh's discovery survey read: processes and leaf
  /// cgroups, whether it went by cgroup, how many units it found.
  struct DiscoveryCounts {
    std::size_t processes = 0, cgroups = 0, found = 0;
    bool by_cgroup = false;
  };
  const DiscoveryCounts& discovery_counts() const { return discovery_counts_; }

  /// One pass: drops workloads whose process exited (or whose pid was reused:
  /// start_time differs) or whose cgroup directory is gone; adds children of
  /// watched parents and processes matching rules not yet present (rule and
  /// cgroup workloads whose watch/rule was removed from the config go too);
  /// then discovery: units at the threshold that no other workload covers
  /// are added, discovered ones that fell under half of it, or that another
  /// workload now covers, are dropped.
  /// Rule and cgroup workloads take their watch's/rule's current settings
  /// (class, priority, pool, quota), so a reload applies to them; a rule
  /// workload whose pid was since registered via the API is dropped ("pid N
  /// registered via api"). Returns what changed this pass.
  struct RefreshResult {
    std::vector<Workload> added;
    std::vector<DroppedWorkload> dropped;
  };
  RefreshResult refresh(std::int64_t now_unix_s);

  const std::vector<Workload>& workloads() const { return workloads_; }
  const Workload* find(const std::string& id) const;
  /// Changes the pool of a workload registered over the API (by id or pid);
  /// throws RegistrationError for one from a rule or a watch (the config
  /// sets those); nullptr when absent.
  const Workload* set_pool(const std::string& id_or_pid, const std::string& pool);
  /// Pids of the workload's processes now: {pid} for a pid workload, the
  /// cgroup.procs of a cgroup workload (empty when unreadable).
  std::vector<pid_t> pids_of(const Workload& workload) const;

  /// State file form: {"workloads":[...]} with every field of Workload, and
  /// no discovered workload (the first refresh after a restart finds them).
  boost::json::value to_json() const;
  /// Restores from a state document: each workload is re-checked; live ones
  /// come back (same id, class, quota, registration time), dead ones are
  /// returned as dropped with the reason ("process 1234 exited while tierd was
  /// down", "pid 1234 reused by another process", ...). Throws
  /// std::invalid_argument for a malformed document (nothing is restored
  /// then). Meant for an empty registry at startup: an id already present
  /// keeps its live entry and the stored copy is ignored.
  std::vector<DroppedWorkload> restore(const boost::json::value& state);

 private:
  struct ProcessView;
  void drop_at(std::size_t index, std::string reason, std::vector<DroppedWorkload>& dropped);
  void refresh_pid_workloads(std::vector<DroppedWorkload>& dropped);
  void refresh_cgroup_workloads(std::vector<DroppedWorkload>& dropped);
  void add_watch_children(std::int64_t now_unix_s, std::vector<Workload>& added);
  void add_rule_matches(std::int64_t now_unix_s, std::vector<Workload>& added);
  void refresh_pods(std::int64_t now_unix_s, std::vector<Workload>& added,
                    std::vector<DroppedWorkload>& dropped);
  void refresh_discovered(std::int64_t now_unix_s, std::vector<Workload>& added,
                          std::vector<DroppedWorkload>& dropped);
  /// Index into rules_ of the first rule matching the process, or -1.
  int matching_rule(const ProcessView& process) const;

  tier::SysRoot root_;
  std::vector<Workload> workloads_;
  // find()'s index: id -> position in workloads_, checked at each lookup and
  // rebuilt when wrong (workloads_ changes in many places; tierd looks ids up
  // thousands of times an epoch with discovery on).
  mutable std::unordered_map<std::string, std::size_t> index_;
  std::vector<CgroupWatch> watches_;
  std::vector<ProcessRule> rules_;
  std::vector<std::regex> rule_patterns_;       // rules_[i].match, compiled in configure()
  std::map<std::string, std::string> rule_of_;  // rule workload id -> the match it came from
  std::optional<KubepodsWatch> kubepods_;
  DiscoverySettings discovery_;
  DiscoveryCounts discovery_counts_;
  // Sizeable processes' stat between surveys (discovery.hpp).
  std::shared_ptr<SurveyMemo> survey_memo_;
};

/// JSON form of one workload: exactly docs/api.md's workload object (no
/// start_time; Registry::to_json adds it for the state file).
boost::json::object workload_json(const Workload& workload);
/// Inverse (also reads "start_time" when present, else 0 = unknown); throws
/// std::invalid_argument naming the field.
Workload workload_from_json(const boost::json::value& value);

}  // namespace tierd
