// The one grammar for every value a user types: on tierctl's command line, in
// tierd.toml, in a control-socket request, in the preload library's
// environment (where they overlap, through the C scanner in value_scan.h).
//
// Contract, for every parser here:
//  - `name` is how the user spelled the flag or key ("--to", "daemon.epoch_ms",
//    "\"pid\""); every error names it and the text as typed.
//  - Empty text is an error ("got nothing"), never a default. Surrounding
//    whitespace is an error too: "--to ' 1'" in a script is a bug to show.
//  - Out of range is an error giving the allowed range in plain numbers
//    ("expected a number from 0 to 1", "expected an integer from 1 to 64",
//    "expected a size from 4K to 1T"): never 1.797e+308, never 0.000000.
//  - A node or CPU is checked against the ids that exist on the machine the
//    command acts on (the caller passes them: the topology under --root, the
//    daemon's own topology); one that does not exist is an error listing the
//    ones that do.
//  - Nothing here makes a system call except the path checks at the end.
//
// Failures throw ValueError (a std::invalid_argument): tierctl exits 2 on it,
// tierd's config reader prefixes file:line, the control server answers
// bad_request.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "tier/cpu/cpulist.hpp"

namespace tier::values {

/// A value refused at the edge. what() is the whole sentence:
/// "--to '': expected a NUMA node number, got nothing".
class ValueError : public std::invalid_argument {
 public:
  ValueError(std::string name, std::string text, std::string why);
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  /// What was wrong, without the name and text ("expected ..., got nothing").
  const std::string& why() const { return why_; }

 private:
  std::string name_, text_, why_;
};

// ---- numbers ---------------------------------------------------------------

/// A whole number in decimal: a count, an id, a priority. A leading '-' is
/// allowed only when `min` is negative. "12abc", "1.5", "0x10" are refused.
std::int64_t parse_integer(std::string_view name, std::string_view text, std::int64_t min,
                           std::int64_t max);
/// The unsigned counterpart (counts, thread numbers, budgets).
std::uint64_t parse_count(std::string_view name, std::string_view text, std::uint64_t min,
                          std::uint64_t max);

/// A decimal number in plain notation ("0.25", "2", "200", ".5" refused,
/// "1e3", "inf", "nan" refused) from `min` to `max`. `min_exclusive` makes
/// the lower bound strict ("expected a number above 0 and up to 100000").
double parse_decimal(std::string_view name, std::string_view text, double min, double max,
                     bool min_exclusive = false);
/// A fraction from 0 to 1 ("0.9").
double parse_ratio(std::string_view name, std::string_view text);
/// A rate in MB/s (1 MB = 2^20 bytes), above 0 and at most `max`.
double parse_rate_mbps(std::string_view name, std::string_view text, double max = 1'000'000);

/// A size in bytes: digits with an optional binary suffix K, M, G, T
/// (also KiB, MiB, GiB, TiB; case-insensitive; 1K = 1024), from `min` to
/// `max` bytes. The digits and suffix are those of the preload library's
/// TIER_PRELOAD_THRESHOLD (value_scan.h scans both).
std::uint64_t parse_size(std::string_view name, std::string_view text, std::uint64_t min,
                         std::uint64_t max);

/// A duration: digits with a unit, ms, s, m or h ("500ms", "2s", "5m"), or
/// bare digits in `bare_unit` when the flag's name carries the unit
/// (--duration-ms 500); a `bare_unit` of 0 requires the unit. From `min` to
/// `max`.
std::chrono::milliseconds parse_duration(std::string_view name, std::string_view text,
                                         std::chrono::milliseconds min,
                                         std::chrono::milliseconds max,
                                         std::chrono::milliseconds bare_unit);

/// A process id: 1 to 4194304 (the kernel's PID_MAX_LIMIT). Whether the
/// process exists is the caller's question (it may have just exited).
pid_t parse_pid(std::string_view name, std::string_view text);

/// [start, end) of a process's addresses: "START-END", each hex (0x...) or
/// decimal, START < END.
struct AddressRange {
  std::uint64_t start = 0, end = 0;
  friend bool operator==(const AddressRange&, const AddressRange&) = default;
};
AddressRange parse_address_range(std::string_view name, std::string_view text);

// ---- ids that must exist here ----------------------------------------------

/// What an id names, for messages: "NUMA node", "CPU".
enum class IdKind { node, cpu };

/// One id that must be in `existing` ("no such NUMA node 7 on this machine
/// (nodes: 0-3)"; an empty `existing` says "none").
unsigned parse_id(std::string_view name, std::string_view text, IdKind kind,
                  const CpuList& existing);
/// A list in the kernel's syntax ("0-3,8"), not empty, every id in `existing`.
CpuList parse_id_list(std::string_view name, std::string_view text, IdKind kind,
                      const CpuList& existing);
/// An id already parsed (a config integer, a JSON number) checked the same way.
void require_existing(std::string_view name, std::int64_t id, IdKind kind, const CpuList& existing);

// ---- plain numbers in messages ---------------------------------------------

/// `value` in plain notation, as short as exact: 1, 0.5, 1000000, 0.001,
/// 1.7976931348623157e308 only if that really is the bound (never for "no
/// bound": say so in words instead).
std::string plain(double value);
/// "from MIN to MAX", "MIN or more" when max is +inf, "above MIN and up to MAX"
/// when the minimum is excluded; "in plain notation" when both are infinite
/// (a policy parameter whose bounds are checked later).
std::string range_text(double min, double max, bool min_exclusive = false);
/// A byte count with the largest exact binary suffix: 4096 → "4K", 3 → "3".
std::string size_text(std::uint64_t bytes);

// ---- paths -----------------------------------------------------------------

/// What a path must be.
enum class PathKind { file, directory, socket };

/// `path` must exist and be of `kind`: "--config '/etc': is a directory,
/// expected a file"; "--config '/nope.toml': no such file"; empty → "got
/// nothing".
void require_path(std::string_view name, const std::filesystem::path& path, PathKind kind);
/// `path` is where something of `kind` will be created: its directory must
/// exist and be writable by this process, and `path`, if it exists, must be of
/// `kind` ("--state '/var/lib/tier/state.json': directory /var/lib/tier does
/// not exist"; "...: /run/tier is not writable: EACCES (Permission denied)").
/// Writable means by the effective ids (faccessat AT_EACCESS): root passes
/// any directory not on a read-only file system.
void require_creatable(std::string_view name, const std::filesystem::path& path, PathKind kind);

}  // namespace tier::values
