#include "daemon_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>

#include <boost/json.hpp>

#include "daemon_client.hpp"
#include "tier/json/json_text.hpp"

namespace tierctl {

namespace json = boost::json;

const json::value* field(const json::value* value, std::string_view key) {
  if (value == nullptr || !value->is_object()) return nullptr;
  return value->as_object().if_contains(key);
}

const json::value* find(const json::value& value, std::initializer_list<std::string_view> path) {
  const json::value* at = &value;
  for (std::string_view key : path) at = field(at, key);
  return at;
}

std::optional<double> number(const json::value* value) {
  if (value == nullptr) return std::nullopt;
  switch (value->kind()) {
    case json::kind::int64:
      return static_cast<double>(value->get_int64());
    case json::kind::uint64:
      return static_cast<double>(value->get_uint64());
    case json::kind::double_:
      return value->get_double();
    default:
      return std::nullopt;
  }
}

std::string text(const json::value* value) {
  if (value == nullptr) return "-";
  switch (value->kind()) {
    case json::kind::null:
      return "-";
    case json::kind::string:
      return value->get_string().empty() ? "-" : std::string(value->get_string());
    case json::kind::bool_:
      return value->get_bool() ? "true" : "false";
    case json::kind::int64:
      return std::to_string(value->get_int64());
    case json::kind::uint64:
      return std::to_string(value->get_uint64());
    case json::kind::double_: {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%g", value->get_double());
      return buffer;
    }
    default:
      return tier::json_text(*value);
  }
}

const json::array& elements(const json::value* value) {
  static const json::array kEmpty;
  return value != nullptr && value->is_array() ? value->get_array() : kEmpty;
}

std::string human_bytes(double bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  char buffer[32];
  if (!std::isfinite(bytes)) return "-";
  if (std::fabs(bytes) < 1024) {
    std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
    return buffer;
  }
  double scaled = bytes / 1024;
  std::size_t unit = 0;
  while (std::fabs(scaled) >= 1024 && unit + 1 < std::size(kUnits)) {
    scaled /= 1024;
    ++unit;
  }
  std::snprintf(buffer, sizeof buffer, "%.1f %s", scaled, kUnits[unit]);
  return buffer;
}

std::string human_bytes(const json::value* value) {
  auto bytes = number(value);
  return bytes ? human_bytes(*bytes) : "-";
}

std::string human_duration(double seconds) {
  char buffer[48];
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  if (seconds < 60) {
    std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
    return buffer;
  }
  auto whole = static_cast<unsigned long long>(seconds);
  const unsigned long long days = whole / 86400, hours = whole % 86400 / 3600,
                           minutes = whole % 3600 / 60, secs = whole % 60;
  if (days > 0) {
    std::snprintf(buffer, sizeof buffer, "%llu d %llu h", days, hours);
  } else if (hours > 0) {
    std::snprintf(buffer, sizeof buffer, "%llu h %llu min", hours, minutes);
  } else {
    std::snprintf(buffer, sizeof buffer, "%llu min %llu s", minutes, secs);
  }
  return buffer;
}

std::string utc_time(const json::value* unix_s) {
  auto seconds = number(unix_s);
  if (!seconds || !std::isfinite(*seconds) || *seconds < 0 || *seconds > 1e15) return "-";
  std::time_t t = static_cast<std::time_t>(*seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return "-";
  char buffer[48];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buffer;
}

std::string percent(const json::value* share) {
  auto value = number(share);
  if (!value || !std::isfinite(*value)) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", *value * 100);
  return buffer;
}

Table::Table(std::vector<std::string> header, std::vector<std::size_t> right_aligned)
    : right_(std::move(right_aligned)) {
  rows_.push_back(std::move(header));
}

void Table::add(std::vector<std::string> row) {
  rows_.push_back(std::move(row));
}

void Table::print(std::ostream& out, std::string_view indent) const {
  std::vector<std::size_t> width;
  for (const auto& row : rows_) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows_) {
    std::string line(indent);
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool right = std::find(right_.begin(), right_.end(), i) != right_.end();
      const std::string pad(width[i] - row[i].size(), ' ');
      if (i > 0) line += "  ";
      // The last column of a left-aligned row needs no trailing padding.
      line += right ? pad + row[i] : (i + 1 == row.size() ? row[i] : row[i] + pad);
    }
    out << line << "\n";
  }
}

int run_daemon_method(const GlobalOptions& global, const std::string& method,
                      const json::value& params, bool json_output,
                      const std::function<void(std::ostream&, const json::value&)>& render) {
  json::value result = daemon_request(global.socket, method, params);
  if (json_output) {
    std::cout << tier::json_text(result) << "\n";
  } else {
    render(std::cout, result);
  }
  std::cout.flush();
  return kOk;
}

}  // namespace tierctl
