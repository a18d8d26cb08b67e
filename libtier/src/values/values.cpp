// The value grammar (tier/values/values.hpp): every parser checks empty and
// surrounding whitespace first, scans with the C core (value_scan.h) or
// std::from_chars, then checks the range, and states the range in the same
// words whether the text was junk or out of range.
#include "tier/values/values.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

#include "tier/posix/error.hpp"
#include "tier/values/value_scan.h"

namespace tier::values {

namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

/// Empty and surrounding whitespace are refused before any scanning, with the
/// sentence of what was expected.
void require_text(std::string_view name, std::string_view text, const std::string& expected) {
  if (text.empty()) throw ValueError(std::string(name), "", expected + ", got nothing");
  if (is_space(text.front()) || is_space(text.back())) {
    throw ValueError(std::string(name), std::string(text),
                     expected + ", without surrounding spaces");
  }
}

[[noreturn]] void refuse(std::string_view name, std::string_view text, std::string why) {
  throw ValueError(std::string(name), std::string(text), std::move(why));
}

/// "from MIN to MAX" for whole numbers, "MIN or more" when max is the
/// type's own limit (a bound nobody chose is not worth printing).
template <class T>
std::string integer_range(T min, T max) {
  if (max == std::numeric_limits<T>::max()) return std::to_string(min) + " or more";
  return "from " + std::to_string(min) + " to " + std::to_string(max);
}

/// Digits in [s, end) as an unsigned value; nullopt on junk or overflow.
std::optional<std::uint64_t> scan_u64(std::string_view digits) {
  std::uint64_t value = 0;
  if (tier_scan_u64(digits.data(), digits.data() + digits.size(), &value) != 0) return std::nullopt;
  return value;
}

const char* kind_noun(IdKind kind) {
  return kind == IdKind::node ? "NUMA node" : "CPU";
}

/// "(nodes: 0-3)", "(CPUs: none)".
std::string existing_text(IdKind kind, const CpuList& existing) {
  return std::string("(") + (kind == IdKind::node ? "nodes" : "CPUs") + ": " +
         (existing.empty() ? std::string("none") : existing.to_string()) + ")";
}

[[noreturn]] void refuse_missing(std::string_view name, std::string_view text, IdKind kind,
                                 const std::string& missing, bool several,
                                 const CpuList& existing) {
  refuse(name, text,
         std::string("no such ") + kind_noun(kind) + (several ? "s " : " ") + missing +
             " on this machine " + existing_text(kind, existing));
}

/// A decimal number in plain notation, checked against [min, max] (or
/// (min, max]); `noun` says what it is ("a number", "a rate in MB/s").
double decimal(std::string_view name, std::string_view text, double min, double max,
               bool min_exclusive, const std::string& noun) {
  const std::string expected = "expected " + noun + " " + range_text(min, max, min_exclusive);
  require_text(name, text, expected);
  // The grammar: [-]digits[.digits]. from_chars alone would take "1e3",
  // "inf", "nan" and a leading '.' is not plain enough to be sure of.
  std::size_t i = text.front() == '-' && min < 0 ? 1 : 0;
  const std::size_t int_start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) ++i;
  bool ok = i > int_start;
  if (ok && i < text.size() && text[i] == '.') {
    const std::size_t frac_start = ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) ++i;
    ok = i > frac_start;
  }
  if (!ok || i != text.size()) refuse(name, text, expected);
  double value = 0;
  auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  // Out of double's range ("1" followed by 400 zeros) is out of any range.
  if (ec != std::errc() || ptr != text.data() + text.size()) refuse(name, text, expected);
  if (value == 0) value = 0;  // "-0" is 0
  const bool above_min = min_exclusive ? value > min : value >= min;
  if (!above_min || value > max) refuse(name, text, expected);
  return value;
}

/// The unit a bare number stands for, in words.
std::string unit_words(std::chrono::milliseconds unit) {
  using namespace std::chrono_literals;
  if (unit == 1ms) return "milliseconds";
  if (unit == 1s) return "seconds";
  if (unit == 1min) return "minutes";
  if (unit == 1h) return "hours";
  return "units of " + std::to_string(unit.count()) + "ms";
}

/// 500 → "500ms", 2000 → "2s", 300000 → "5m": the largest exact unit.
std::string duration_text(std::chrono::milliseconds d) {
  const std::int64_t ms = d.count();
  if (ms != 0 && ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms != 0 && ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms != 0 && ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

/// Hex "0x..." or decimal, for an address.
std::optional<std::uint64_t> scan_address(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    if (text.empty()) return std::nullopt;
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return value;
  }
  return scan_u64(text);
}

const char* path_noun(PathKind kind) {
  switch (kind) {
    case PathKind::file:
      return "file";
    case PathKind::directory:
      return "directory";
    case PathKind::socket:
      return "socket";
  }
  return "file";
}

/// What a stat'ed path is, in the words of the messages.
const char* mode_noun(mode_t mode) {
  if (S_ISREG(mode)) return "a file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "of another kind";
}

bool is_kind(mode_t mode, PathKind kind) {
  switch (kind) {
    case PathKind::file:
      return S_ISREG(mode);
    case PathKind::directory:
      return S_ISDIR(mode);
    case PathKind::socket:
      return S_ISSOCK(mode);
  }
  return false;
}

void require_kind(std::string_view name, const std::filesystem::path& path, mode_t mode,
                  PathKind kind) {
  if (!is_kind(mode, kind)) {
    refuse(name, path.string(),
           std::string("is ") + mode_noun(mode) + ", expected a " + path_noun(kind));
  }
}

void require_nonempty_path(std::string_view name, const std::filesystem::path& path,
                           PathKind kind) {
  if (path.empty())
    refuse(name, "", std::string("expected a ") + path_noun(kind) + ", got nothing");
}

}  // namespace

ValueError::ValueError(std::string name, std::string text, std::string why)
    : std::invalid_argument(name + " '" + text + "': " + why),
      name_(std::move(name)),
      text_(std::move(text)),
      why_(std::move(why)) {}

// ---- numbers ---------------------------------------------------------------

std::int64_t parse_integer(std::string_view name, std::string_view text, std::int64_t min,
                           std::int64_t max) {
  const std::string expected = "expected an integer " + integer_range(min, max);
  require_text(name, text, expected);
  const bool negative = text.front() == '-';
  if (negative && min >= 0) refuse(name, text, expected);
  auto magnitude = scan_u64(negative ? text.substr(1) : text);
  if (!magnitude) refuse(name, text, expected);
  // The magnitude of INT64_MIN is INT64_MAX + 1.
  constexpr auto kMaxMagnitude =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (*magnitude > kMaxMagnitude + (negative ? 1 : 0)) refuse(name, text, expected);
  const std::int64_t value =
      negative ? static_cast<std::int64_t>(0 - *magnitude) : static_cast<std::int64_t>(*magnitude);
  if (value < min || value > max) refuse(name, text, expected);
  return value;
}

std::uint64_t parse_count(std::string_view name, std::string_view text, std::uint64_t min,
                          std::uint64_t max) {
  const std::string expected = "expected an integer " + integer_range(min, max);
  require_text(name, text, expected);
  auto value = scan_u64(text);
  if (!value || *value < min || *value > max) refuse(name, text, expected);
  return *value;
}

double parse_decimal(std::string_view name, std::string_view text, double min, double max,
                     bool min_exclusive) {
  return decimal(name, text, min, max, min_exclusive, "a number");
}

double parse_ratio(std::string_view name, std::string_view text) {
  return decimal(name, text, 0, 1, false, "a number");
}

double parse_rate_mbps(std::string_view name, std::string_view text, double max) {
  return decimal(name, text, 0, max, true, "a rate in MB/s");
}

std::uint64_t parse_size(std::string_view name, std::string_view text, std::uint64_t min,
                         std::uint64_t max) {
  const std::string range = max == std::numeric_limits<std::uint64_t>::max()
                                ? size_text(min) + " or more"
                                : "from " + size_text(min) + " to " + size_text(max);
  require_text(name, text, "expected a size " + range);
  std::uint64_t value = 0;
  if (tier_scan_size(text.data(), text.data() + text.size(), &value) != 0) {
    refuse(name, text, "expected a size in bytes with an optional K, M, G or T suffix, " + range);
  }
  if (value < min || value > max) refuse(name, text, "expected a size " + range);
  return value;
}

std::chrono::milliseconds parse_duration(std::string_view name, std::string_view text,
                                         std::chrono::milliseconds min,
                                         std::chrono::milliseconds max,
                                         std::chrono::milliseconds bare_unit) {
  const std::string range = "from " + duration_text(min) + " to " + duration_text(max);
  const std::string form = bare_unit.count() > 0
                               ? unit_words(bare_unit) + " or a duration with ms, s, m or h"
                               : "a duration with ms, s, m or h (500ms, 2s, 5m)";
  const std::string expected = "expected " + form + " " + range;
  require_text(name, text, expected);
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) {
    ++digits;
  }
  const std::string_view unit = text.substr(digits);
  std::int64_t per = 0;
  if (unit.empty()) {
    per = bare_unit.count();
  } else if (unit == "ms") {
    per = 1;
  } else if (unit == "s") {
    per = 1000;
  } else if (unit == "m") {
    per = 60'000;
  } else if (unit == "h") {
    per = 3'600'000;
  }
  auto count = scan_u64(text.substr(0, digits));
  if (per <= 0 || !count) refuse(name, text, expected);
  // Beyond max (which fits an int64 of ms) whatever the multiplication gives.
  const auto limit = static_cast<std::uint64_t>(max.count() < 0 ? 0 : max.count());
  if (*count > limit / static_cast<std::uint64_t>(per)) refuse(name, text, expected);
  const std::chrono::milliseconds value(static_cast<std::int64_t>(*count) * per);
  if (value < min || value > max) refuse(name, text, expected);
  return value;
}

pid_t parse_pid(std::string_view name, std::string_view text) {
  constexpr std::int64_t kPidMaxLimit = 4'194'304;  // the kernel's PID_MAX_LIMIT
  const std::string expected =
      "expected a process id " + integer_range<std::int64_t>(1, kPidMaxLimit);
  require_text(name, text, expected);
  auto value = scan_u64(text);
  if (!value || *value < 1 || *value > kPidMaxLimit) refuse(name, text, expected);
  return static_cast<pid_t>(*value);
}

AddressRange parse_address_range(std::string_view name, std::string_view text) {
  const std::string expected =
      "expected START-END addresses (hex 0x... or decimal) with START below END";
  require_text(name, text, expected);
  const auto dash = text.find('-');
  if (dash == std::string_view::npos) refuse(name, text, expected);
  auto start = scan_address(text.substr(0, dash));
  auto end = scan_address(text.substr(dash + 1));
  if (!start || !end || *start >= *end) refuse(name, text, expected);
  return AddressRange{*start, *end};
}

// ---- ids that must exist here ----------------------------------------------

unsigned parse_id(std::string_view name, std::string_view text, IdKind kind,
                  const CpuList& existing) {
  const std::string expected = std::string("expected a ") + kind_noun(kind) + " number";
  require_text(name, text, expected);
  auto value = scan_u64(text);
  if (!value) refuse(name, text, expected + " " + existing_text(kind, existing));
  if (*value > std::numeric_limits<unsigned>::max() ||
      !existing.contains(static_cast<unsigned>(*value))) {
    refuse_missing(name, text, kind, std::string(text), false, existing);
  }
  return static_cast<unsigned>(*value);
}

CpuList parse_id_list(std::string_view name, std::string_view text, IdKind kind,
                      const CpuList& existing) {
  const std::string expected =
      std::string("expected a list of ") + kind_noun(kind) + "s such as 0-3,8";
  require_text(name, text, expected);
  // CpuList::parse trims inside items ("0, 1"); the grammar has no spaces.
  if (std::any_of(text.begin(), text.end(), is_space)) refuse(name, text, expected);
  auto list = CpuList::parse(text);
  if (!list || list->empty()) refuse(name, text, expected + " " + existing_text(kind, existing));
  std::vector<unsigned> missing;
  for (unsigned id : list->ids()) {
    if (!existing.contains(id)) missing.push_back(id);
  }
  if (!missing.empty()) {
    const bool several = missing.size() > 1;
    refuse_missing(name, text, kind, CpuList(std::move(missing)).to_string(), several, existing);
  }
  return *list;
}

void require_existing(std::string_view name, std::int64_t id, IdKind kind,
                      const CpuList& existing) {
  if (id < 0 || id > std::numeric_limits<unsigned>::max() ||
      !existing.contains(static_cast<unsigned>(id))) {
    refuse_missing(name, std::to_string(id), kind, std::to_string(id), false, existing);
  }
}

// ---- plain numbers in messages ---------------------------------------------

std::string plain(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "infinity" : "-infinity";
  if (value == 0) return "0";  // and -0
  // Fixed notation, as few digits as read back exactly. Past 32 characters
  // (1e40, 1e-30) plain notation helps nobody: the shortest exponent form,
  // written 1e40 rather than 1e+40.
  char buffer[400];
  auto fixed = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  std::string out(buffer, fixed.ptr);
  if (out.size() <= 32) return out;
  auto sci = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  out.assign(buffer, sci.ptr);
  if (auto plus = out.find("e+"); plus != std::string::npos) out.erase(plus + 1, 1);
  return out;
}

std::string range_text(double min, double max, bool min_exclusive) {
  if (std::isinf(min) && min < 0 && std::isinf(max) && max > 0) return "in plain notation";
  if (std::isinf(max) && max > 0) {
    return min_exclusive ? "above " + plain(min) : plain(min) + " or more";
  }
  if (std::isinf(min) && min < 0) return plain(max) + " or less";
  if (min_exclusive) return "above " + plain(min) + " and up to " + plain(max);
  return "from " + plain(min) + " to " + plain(max);
}

std::string size_text(std::uint64_t bytes) {
  static constexpr std::pair<unsigned, char> kSuffixes[] = {
      {40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
  if (bytes != 0) {
    for (const auto& [shift, letter] : kSuffixes) {
      const std::uint64_t unit = std::uint64_t{1} << shift;
      if (bytes % unit == 0) return std::to_string(bytes / unit) + letter;
    }
  }
  return std::to_string(bytes);
}

// ---- paths -----------------------------------------------------------------

void require_path(std::string_view name, const std::filesystem::path& path, PathKind kind) {
  require_nonempty_path(name, path, kind);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) refuse(name, path.string(), std::string("no such ") + path_noun(kind));
    refuse(name, path.string(), "cannot be read: " + posix::errno_text(error));
  }
  require_kind(name, path, st.st_mode, kind);
}

void require_creatable(std::string_view name, const std::filesystem::path& path, PathKind kind) {
  require_nonempty_path(name, path, kind);
  const std::filesystem::path parent =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  struct stat st {};
  if (::stat(parent.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      refuse(name, path.string(), "directory " + parent.string() + " does not exist");
    }
    refuse(name, path.string(), "directory " + parent.string() + ": " + posix::errno_text(error));
  }
  if (!S_ISDIR(st.st_mode)) {
    refuse(name, path.string(),
           parent.string() + " is " + mode_noun(st.st_mode) + ", expected a directory");
  }
  // The effective ids are the ones open() and bind() will use.
  if (::faccessat(AT_FDCWD, parent.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    refuse(name, path.string(), parent.string() + " is not writable: " + posix::errno_text(errno));
  }
  if (::stat(path.c_str(), &st) == 0) require_kind(name, path, st.st_mode, kind);
}

}  // namespace tier::values
