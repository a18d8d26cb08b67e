// Rendering tierd replies for humans (status, workloads, policy, ...).
//
// Contract: every accessor here tolerates any JSON shape. A reply that
// follows docs/api.md but leaves out optional fields (resident_bytes_by_node
// before the first sampling epoch, a daemon that reports fewer status keys)
// renders as "-" in those places; nothing throws on a missing or mistyped
// field, so a newer or older tierd never crashes tierctl's human output.
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"

namespace tierctl {

/// `value[key]` when `value` is an object holding `key`, else nullptr.
const boost::json::value* field(const boost::json::value* value, std::string_view key);
/// field() along a path: find(result, {"policy", "name"}).
const boost::json::value* find(const boost::json::value& value,
                               std::initializer_list<std::string_view> path);

/// A scalar as text: strings as they are, numbers, true/false; "-" for
/// null, missing or empty strings; anything else serialized as JSON.
std::string text(const boost::json::value* value);
/// Any JSON number as a double; nullopt for anything else.
std::optional<double> number(const boost::json::value* value);
/// An array's elements (empty when not an array).
const boost::json::array& elements(const boost::json::value* value);

/// 1536 -> "1.5 KiB", 8589934592 -> "8.0 GiB"; "-" for a non-number.
std::string human_bytes(const boost::json::value* value);
std::string human_bytes(double bytes);
/// 12.5 -> "12.5 s", 3725 -> "1 h 2 min", 90061 -> "1 d 1 h".
std::string human_duration(double seconds);
/// Unix seconds -> "2026-11-30 12:53:20 UTC"; "-" for a non-number.
std::string utc_time(const boost::json::value* unix_s);
/// A 0..1 share -> "99.6%"; "-" for a non-number.
std::string percent(const boost::json::value* share);

/// Left-aligned text columns separated by two spaces; columns whose index is
/// in `right_aligned` are right-aligned (numbers).
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<std::size_t> right_aligned = {});
  void add(std::vector<std::string> row);
  void print(std::ostream& out, std::string_view indent = "") const;
  bool empty() const { return rows_.size() <= 1; }

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> right_;
};

/// Sends one request to tierd (--socket) and prints the result: with --json
/// the result object as is, on one line; otherwise through `render`.
int run_daemon_method(const GlobalOptions& global, const std::string& method,
                      const boost::json::value& params, bool json,
                      const std::function<void(std::ostream&, const boost::json::value&)>& render);

}  // namespace tierctl
