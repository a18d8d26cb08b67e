// `tierctl run`: from the flags as given to a validated plan (pure, no syscalls).
//
// RunRequest is what the command line said, numactl-style flags kept in the
// order they were given. make_plan() turns it into a RunPlan: the CPU set to
// bind to, one memory policy with its nodes, the command, the environment to
// add and what to tell tierd. Every question about the machine (does node 5
// exist, is CPU 7 allowed, which CPUs does node 1 have) goes through a Machine,
// so tests answer from fixture topologies and tierctl from libnuma
// (run_exec.hpp, live_machine()). Bad input throws RunUsageError (exit 2);
// nothing here changes the process.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tier/cpu/cpulist.hpp"
#include "tier/topology/topology.hpp"

namespace tierctl::run {

/// Bad flags or values; what() names the flag and the value. Exit 2.
struct RunUsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Something the launcher cannot do: an option that needs tierd while none
/// runs, a memory policy the kernel lacks. Exit 1.
struct RunFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The memory policies numactl sets (set_mempolicy modes), `none` = inherit.
enum class MemPolicy {
  none,
  bind,
  preferred,
  preferred_many,
  interleave,
  weighted_interleave,
  local
};
const char* to_string(MemPolicy policy);

/// One numactl-style flag as given: `flag` is the spelling for messages
/// ("--membind"), `value` empty for --localalloc.
struct BindFlag {
  enum class Kind { cpunodebind, physcpubind, memory };
  Kind kind = Kind::memory;
  MemPolicy policy = MemPolicy::none;  // for Kind::memory
  std::string flag;
  std::string value;
};

/// The command line of `tierctl run`, unvalidated.
struct RunRequest {
  std::optional<std::string> klass;    // --class online|offline
  std::optional<std::string> pool;     // --pool shared|numa:N|immovable:K|exclusive:K
  std::optional<std::string> quota;    // --quota SIZE|PCT
  std::optional<std::string> near;     // --near DEVICE
  std::optional<std::string> preload;  // --preload POLICY
  std::vector<BindFlag> binds;         // in command-line order
  std::vector<std::string> command;    // CMD ARGS...
};

/// Answers about the machine the command will run on. Each parser returns the
/// set or an error text naming the bad part ("node argument 5 is out of
/// range"); semantics are numactl's ("all", "!0", "+0", ranges).
struct Machine {
  struct Parsed {
    std::optional<tier::CpuList> ids;
    std::string error;
  };
  std::function<Parsed(const std::string&)> parse_nodes;
  std::function<Parsed(const std::string&)> parse_cpus;
  std::function<tier::CpuList(unsigned node)> node_cpus;
};

/// Where the command runs and where its memory goes; empty fields inherit.
struct Binding {
  std::optional<tier::CpuList> cpus;
  MemPolicy policy = MemPolicy::none;
  tier::CpuList nodes;  // the policy's nodes (empty for none/local)
  friend bool operator==(const Binding&, const Binding&) = default;
};

/// A validated request.
struct RunPlan {
  Binding binding;  // numactl-style flags or --near
  /// --pool numa:N without tierd: N's CPUs, memory preferred on N (tierd,
  /// when running, places pools itself and this stays unused).
  std::optional<Binding> pool_binding;
  /// What workloads.register gets besides the pid (only what was given).
  std::optional<std::string> klass, pool, quota;
  /// The options that need tierd as typed ("--class online"); empty when the
  /// command can run without it.
  std::vector<std::string> needs_daemon;
  std::vector<std::string> command;
};

/// The binding for --pool numa:N, or nullopt for other pools. Throws
/// RunUsageError on a malformed pool.
std::optional<unsigned> parse_pool_numa(const std::string& pool);

/// Validates `request` against `machine`. `topology` is called only for
/// --near. Throws RunUsageError naming the offending flag and value.
RunPlan make_plan(const RunRequest& request, const Machine& machine,
                  const std::function<tier::Topology()>& topology);

/// --near DEVICE on `topology`: the device by name or PCI address, bound to
/// its NUMA node's CPUs (local_cpus when the node has none) with memory bound
/// to that node. Throws RunUsageError for an unknown device (listing the known
/// ones) or a device without a NUMA node.
Binding resolve_near(const tier::Topology& topology, const std::string& device);

/// The candidate places of libtierpreload.so for a tierctl in `bindir`: every
/// `<bindir>/../lib*/` directory, in name order.
std::vector<std::filesystem::path> preload_search_dirs(const std::filesystem::path& bindir);

/// The environment --preload POLICY adds: LD_PRELOAD (the library first, then
/// any existing value) and TIER_PRELOAD_POLICY. Throws RunUsageError naming
/// every place looked in when the library is in none of `dirs`.
std::vector<std::pair<std::string, std::string>> preload_environment(
    const std::vector<std::filesystem::path>& dirs, const std::string& policy,
    const char* existing_ld_preload);

}  // namespace tierctl::run
