// A process's own NUMA memory policy, as /proc/PID/numa_maps and
// /proc/PID/status show it, and whether it lets a page onto a node.
//
// Why: a process that called mbind(2) or set_mempolicy(2), or runs in a
// cpuset whose mems exclude a node, asked for its memory to be somewhere.
// move_pages(2) does not check the VMA's policy (only the cpuset, and then it
// fails the whole call), so tierd must: it never moves a page against what
// the process asked for.
//
// numa_maps prints each mapping's policy (its own, else the task's) with the
// kernel's mpol_to_str(): "default", "local", "prefer:2", "bind:0-1",
// "interleave:0-3", "prefer (many):0-1", "weighted interleave:0-3", and mode
// flags after '=' ("bind=static:0-1", "bind=balancing:0-1").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tier/cpu/cpulist.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier {

struct MemoryPolicy {
  enum class Mode {
    none,  // "default" or "local": the kernel's choice, any node may hold a page
    preferred,
    preferred_many,
    bind,
    interleave,
    weighted_interleave,
  };
  Mode mode = Mode::none;
  CpuList nodes;     // the policy's nodes (empty for `none`)
  std::string text;  // as numa_maps printed it

  /// Whether a page under this policy may be moved to `node`. Binding and
  /// preferring name the nodes the process wants its pages on: only those.
  /// Interleaving asks for the pages spread over its nodes, which a move to
  /// any one node undoes: none.
  bool allows(unsigned node) const;
};

/// Parses one policy as numa_maps prints it ("bind=static:0-1"); nullopt for
/// a mode this parser does not know (then nothing is moved: the safe side).
std::optional<MemoryPolicy> parse_memory_policy(std::string_view text);

/// Every mapping's policy of one process, keyed by mapping start, and the
/// nodes its cpuset lets it use.
struct ProcessMemoryPolicy {
  std::map<std::uint64_t, MemoryPolicy> by_mapping;  // parsed from numa_maps
  std::map<std::uint64_t, std::string> unknown;      // mappings whose policy did not parse
  std::optional<CpuList> mems_allowed;               // status's Mems_allowed_list

  /// Whether a page at `address` may go to `node` (refusal() says why not,
  /// and builds its text: this one does not).
  bool allows(std::uint64_t address, unsigned node) const;
  /// Why a page at `address` must not go to `node` ("" when it may): the
  /// cpuset's mems, or the policy of the mapping that holds it (the last one
  /// starting at or below it). An address below every mapping is allowed.
  std::string refusal(std::uint64_t address, unsigned node) const;
  /// Whether the mapping holding `address` has a policy of its own (any but
  /// default/local, or one not understood): the process places those pages
  /// itself, and a placement policy should not plan them.
  bool places_itself(std::uint64_t address) const;
  /// Whether /proc/PID/maps text lists exactly the mappings this was read
  /// for (by start; [vsyscall], which numa_maps never lists, aside). A new
  /// mapping (mmap, or mbind of part of one, which splits it) says it is
  /// stale. maps costs no page-table walk; numa_maps walks every page.
  bool same_mappings(std::string_view maps) const;

 private:
  /// The mapping holding an address: its parsed policy, or its text when it
  /// did not parse; both null below every mapping.
  struct Holder {
    const MemoryPolicy* policy;
    const std::string* unknown;
  };
  Holder holder(std::uint64_t address) const;
};

/// Parses /proc/PID/numa_maps text (each mapping's policy) and
/// /proc/PID/status text (Mems_allowed_list).
ProcessMemoryPolicy parse_process_memory_policy(std::string_view numa_maps,
                                                std::string_view status);

/// Reads /proc/PID/numa_maps and /proc/PID/status; nullopt when the process
/// is gone or unreadable.
std::optional<ProcessMemoryPolicy> read_process_memory_policy(const SysRoot& root, int pid);

}  // namespace tier
