// tierctl's flags that carry a value: registered as text, converted by the
// one value grammar (tier/values/values.hpp) when the command runs.
//
// CLI11 would convert "--to ''" into node 0 and "--rate ''" into no limit: it
// assigns an empty text as the type's default. Here CLI11 only collects the
// text as typed (CLI::Option::results()); each Value knows its flag's name
// and the tier::values parser for its kind, so an empty, negative, huge or
// malformed value is a tier::values::ValueError naming the flag and the
// allowed range (tierctl exits 2). Nodes and CPUs are checked against the
// ids of the machine the command acts on (the --root tree or this machine),
// which the command passes in when it asks for the value.
//
// Each command says what a flag is, not how to check it:
//   add_pid_option(*cmd, "--pid", options->pid, "Process whose pages move")->required();
//   add_node_option(*cmd, "--to", options->to, "Target NUMA node")->required();
//   ...
//   const pid_t pid = options.pid.required();
//   const unsigned to = options.to.required(node_ids(topology));
#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tier/cpu/cpulist.hpp"
#include "tier/topology/topology.hpp"
#include "tier/values/values.hpp"

namespace tierctl {

/// What a flag was given, as typed. Bound to its CLI::Option at registration.
class FlagText {
 public:
  /// How the user spelled the flag ("--to", "ID"), for messages.
  const std::string& name() const { return name_; }
  bool given() const { return option_ != nullptr && option_->count() > 0; }
  /// Every text given, in order (one for a single-valued flag).
  std::vector<std::string> texts() const;

 protected:
  friend CLI::Option* bind_text(CLI::App& cmd, const std::string& name, FlagText& flag,
                                const std::string& type, const std::string& help, bool repeatable);
  CLI::Option* option_ = nullptr;
  std::string name_;
};

/// Registers `name` as a text-only option (or a positional when `name` has
/// no leading '-') bound to `flag`. `repeatable`: given again, each text is
/// kept (--tier 2=1 --tier 3=1); otherwise a second one is a usage error.
CLI::Option* bind_text(CLI::App& cmd, const std::string& name, FlagText& flag,
                       const std::string& type, const std::string& help, bool repeatable = false);

/// A single-valued flag whose text converts without the machine.
template <class T>
class Value : public FlagText {
 public:
  using Parse = std::function<T(std::string_view name, std::string_view text)>;

  /// nullopt when the flag was not given; otherwise the converted value
  /// (throws tier::values::ValueError for a bad text, empty included).
  std::optional<T> get() const {
    if (!given()) return std::nullopt;
    return parse_(name_, option_->results().front());
  }
  T get_or(T fallback) const {
    std::optional<T> value = get();
    return value ? *value : fallback;
  }
  /// A flag CLI11 required (->required()): always given by now.
  T required() const { return get().value(); }
  /// The parser with its bounds, set by the add_*_option that registers it.
  void set_parse(Parse parse) { parse_ = std::move(parse); }

 private:
  Parse parse_;
};

/// The general registration: `parse` is a tier::values parser with its
/// bounds bound. The named helpers below cover tierctl's kinds.
template <class T>
CLI::Option* add_value_option(CLI::App& cmd, const std::string& name, Value<T>& value,
                              typename Value<T>::Parse parse, const std::string& type,
                              const std::string& help) {
  value.set_parse(std::move(parse));
  return bind_text(cmd, name, value, type, help);
}

/// A NUMA node (or CPU) id that must exist where the command acts.
class IdValue : public FlagText {
 public:
  explicit IdValue(tier::values::IdKind kind = tier::values::IdKind::node) : kind_(kind) {}
  /// nullopt when not given; otherwise an id in `existing` (ValueError
  /// "no such NUMA node 7 on this machine (nodes: 0)" when it is not).
  std::optional<unsigned> get(const tier::CpuList& existing) const;
  unsigned required(const tier::CpuList& existing) const { return get(existing).value(); }

 private:
  tier::values::IdKind kind_;
};

/// Repeatable lists of ids in the kernel's syntax (--target 0,2 --target 3):
/// their union, every id in `existing`; nullopt when not given.
class IdListValue : public FlagText {
 public:
  explicit IdListValue(tier::values::IdKind kind = tier::values::IdKind::node) : kind_(kind) {}
  std::optional<tier::CpuList> get(const tier::CpuList& existing) const;

 private:
  tier::values::IdKind kind_;
};

/// Repeatable free-form texts (--tier NODE=RANK): each given text, empty
/// ones refused; the command parses their parts with tier::values.
class TextListValue : public FlagText {
 public:
  std::vector<std::string> get() const;
};

// ---- one helper per kind ---------------------------------------------------

/// A process id, 1 to 4194304 (PID).
CLI::Option* add_pid_option(CLI::App& cmd, const std::string& name, Value<pid_t>& value,
                            const std::string& help);
/// A NUMA node id (NODE); existence is checked when the command asks.
CLI::Option* add_node_option(CLI::App& cmd, const std::string& name, IdValue& value,
                             const std::string& help);
/// NUMA node lists, repeatable (NODES).
CLI::Option* add_node_list_option(CLI::App& cmd, const std::string& name, IdListValue& value,
                                  const std::string& help);
/// A whole number from `min` to `max` (N).
CLI::Option* add_count_option(CLI::App& cmd, const std::string& name, Value<std::uint64_t>& value,
                              std::uint64_t min, std::uint64_t max, const std::string& help);
/// A signed whole number from `min` to `max` (N).
CLI::Option* add_integer_option(CLI::App& cmd, const std::string& name, Value<std::int64_t>& value,
                                std::int64_t min, std::int64_t max, const std::string& help);
/// A decimal number of seconds, above 0 and at most `max` (SECONDS).
CLI::Option* add_seconds_option(CLI::App& cmd, const std::string& name, Value<double>& value,
                                double max, const std::string& type, const std::string& help);
/// A decimal in plain notation from `min` (excluded when `min_exclusive`) to `max`.
CLI::Option* add_decimal_option(CLI::App& cmd, const std::string& name, Value<double>& value,
                                double min, double max, bool min_exclusive, const std::string& type,
                                const std::string& help);
/// A rate in MB/s above 0 (MBPS).
CLI::Option* add_rate_option(CLI::App& cmd, const std::string& name, Value<double>& value,
                             const std::string& help);
/// A size in bytes with an optional K/M/G/T suffix, from `min` to `max` (BYTES).
CLI::Option* add_size_option(CLI::App& cmd, const std::string& name, Value<std::uint64_t>& value,
                             std::uint64_t min, std::uint64_t max, const std::string& help);
/// A duration ("500ms", "2s"; bare digits in `bare_unit`), from `min` to `max`.
CLI::Option* add_duration_option(CLI::App& cmd, const std::string& name,
                                 Value<std::chrono::milliseconds>& value,
                                 std::chrono::milliseconds min, std::chrono::milliseconds max,
                                 std::chrono::milliseconds bare_unit, const std::string& type,
                                 const std::string& help);
/// START-END addresses, hex or decimal, START < END.
CLI::Option* add_range_option(CLI::App& cmd, const std::string& name,
                              Value<tier::values::AddressRange>& value, const std::string& help);
/// Any text but the empty one (a name, a regex, a cgroup path, a policy).
CLI::Option* add_text_option(CLI::App& cmd, const std::string& name, Value<std::string>& value,
                             const std::string& type, const std::string& help);
/// One of `choices` ("online", "offline", "default").
CLI::Option* add_choice_option(CLI::App& cmd, const std::string& name, Value<std::string>& value,
                               std::vector<std::string> choices, const std::string& help);
/// A file tierctl writes: not empty and not a directory. Whether it can be
/// created is the writer's to say (a missing directory, /dev/full).
CLI::Option* add_output_file_option(CLI::App& cmd, const std::string& name,
                                    Value<std::filesystem::path>& value, const std::string& type,
                                    const std::string& help);

// ---- values shared by several commands -------------------------------------

/// The ids of `topology`'s nodes: what a NODE flag may name.
tier::CpuList node_ids(const tier::Topology& topology);

/// The CPU pool words of `run --pool` and `workloads register/update --pool`:
/// shared, numa:N, immovable:K, exclusive:K. Returns the text; throws
/// ValueError naming `name` for another word or a bad N or K.
std::string parse_pool(std::string_view name, std::string_view text);
/// A fast-tier quota: a size (8G, 512M, 1048576), a share over 0 and at most
/// 100 ("25%", "12.5%") or "none". Returns the text as typed.
std::string parse_quota(std::string_view name, std::string_view text);

/// The largest NUMA node id Linux has (MAX_NUMNODES = 1024) and the most
/// CPUs an x86-64 kernel takes (NR_CPUS = 8192): the bounds of a number that
/// names a node or counts CPUs before the machine is asked.
inline constexpr std::uint64_t kMaxNodeId = 1023;
inline constexpr std::uint64_t kMaxCpuCount = 8192;

}  // namespace tierctl
