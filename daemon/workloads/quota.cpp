// Workload source names and the fast-tier quota syntax.
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "tier/posix/text.hpp"
#include "workloads/registry.hpp"

namespace tierd {

const char* to_string(WorkloadSource s) {
  switch (s) {
    case WorkloadSource::api:
      return "api";
    case WorkloadSource::cgroup:
      return "cgroup";
    case WorkloadSource::rule:
      return "rule";
    case WorkloadSource::pod:
      return "pod";
    case WorkloadSource::discovered:
      return "discovered";
  }
  return "api";
}

std::optional<WorkloadSource> parse_workload_source(std::string_view text) {
  if (text == "api") return WorkloadSource::api;
  if (text == "cgroup") return WorkloadSource::cgroup;
  if (text == "rule") return WorkloadSource::rule;
  if (text == "pod") return WorkloadSource::pod;
  if (text == "discovered") return WorkloadSource::discovered;
  return std::nullopt;
}

namespace {

using tier::text::trim;

// Binary multiples, largest first so to_string picks the largest exact one.
constexpr std::array<std::pair<char, std::uint64_t>, 4> kUnits{{
    {'T', std::uint64_t{1} << 40},
    {'G', std::uint64_t{1} << 30},
    {'M', std::uint64_t{1} << 20},
    {'K', std::uint64_t{1} << 10},
}};

[[noreturn]] void bad_quota(std::string_view text, std::string_view why) {
  throw std::invalid_argument(
      "invalid quota '" + std::string(text) + "': " + std::string(why) +
      "; expected a byte count (1048576), a binary size with suffix K, M, G or T (also KiB/KB, "
      "..., e.g. 512M, 8G), a percentage of resident memory over 0 and at most 100 (25%, 12.5%), "
      "or \"\"/\"none\" for no quota");
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

Quota parse_quota(std::string_view text) {
  std::string_view body = trim(text);
  Quota quota;
  if (body.empty() || iequals(body, "none")) return quota;

  if (body.back() == '%') {
    body = trim(body.substr(0, body.size() - 1));
    double percent = 0;
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), percent);
    if (ec != std::errc() || ptr != body.data() + body.size() || body.empty()) {
      bad_quota(text, "not a number before '%'");
    }
    if (!(std::isfinite(percent) && percent > 0 && percent <= 100)) {
      bad_quota(text, "a percentage must be over 0 and at most 100");
    }
    quota.percent = percent;
    return quota;
  }

  std::size_t digits = 0;
  while (digits < body.size() && std::isdigit(static_cast<unsigned char>(body[digits]))) ++digits;
  if (digits == 0) bad_quota(text, "no number");
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + digits, value);
  if (ec == std::errc::result_out_of_range) bad_quota(text, "too large");
  if (ec != std::errc() || ptr != body.data() + digits) bad_quota(text, "no number");

  std::string_view suffix = trim(body.substr(digits));
  if (!suffix.empty() && suffix.front() == '.') bad_quota(text, "a size must be a whole number");
  std::uint64_t multiplier = 1;
  if (!suffix.empty() && !iequals(suffix, "B")) {
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix.front())));
    std::string_view rest = suffix.substr(1);
    bool found = false;
    for (const auto& [name, bytes] : kUnits) {
      if (unit == name) {
        multiplier = bytes;
        found = true;
      }
    }
    if (!found || !(rest.empty() || iequals(rest, "B") || iequals(rest, "iB"))) {
      bad_quota(text, "unknown unit '" + std::string(suffix) + "'");
    }
  }
  if (value > std::numeric_limits<std::uint64_t>::max() / multiplier) bad_quota(text, "too large");
  quota.bytes = value * multiplier;
  return quota;
}

std::string to_string(const Quota& quota) {
  if (quota.bytes) {
    std::uint64_t bytes = *quota.bytes;
    if (bytes != 0) {
      for (const auto& [name, unit] : kUnits) {
        if (bytes % unit == 0) return std::to_string(bytes / unit) + name;
      }
    }
    return std::to_string(bytes);
  }
  if (quota.percent) {
    // Shortest text that reads back as the same double: "25", "12.5".
    std::array<char, 64> buffer{};
    auto [ptr, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), *quota.percent);
    if (ec != std::errc()) return std::to_string(*quota.percent) + "%";
    return std::string(buffer.data(), ptr) + "%";
  }
  return "";
}

}  // namespace tierd
