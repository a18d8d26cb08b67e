// The TOML side of tierd's configuration parser (daemon/config*.cpp only):
// TableReader checks one table's keys against the keys that table may hold
// (the schema in config_reader.cpp, which config_keys() lists too) and reads
// its values.
//
// Contract: every error is a ConfigError naming origin:line and the dotted
// key ("tierd.toml:3: key 'daemon.epoch_ms': expected an integer from 100 to
// 3600000"); tests/unit/daemon_config_test.cpp holds those texts.
#pragma once

#include <toml++/toml.h>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config.hpp"

namespace tierd::detail {

/// What every section reader gets beside its table: the file's name for
/// messages, and where to note each key's line (null: nowhere).
struct ParseContext {
  const std::string& origin;
  ConfigSource* source = nullptr;
};

/// Reads one TOML table; every error names origin:line and the dotted key.
class TableReader {
 public:
  /// Refuses (throws) any key `schema_name`'s table does not hold ("" is the
  /// top level); `prefix` is put before key names in errors ("daemon.").
  /// Notes the line of every key in the context's source.
  TableReader(const toml::table& table, const ParseContext& context, std::string schema_name,
              std::string prefix);

  [[noreturn]] void fail(const toml::node& node, const std::string& key,
                         const std::string& what) const;
  /// Notes the line of a key inside one of this table's values
  /// ("tier_override.2"), for messages made after parsing.
  void note(const std::string& key, const toml::node& node) const;

  const toml::node* get(const char* key) const { return table_.get(key); }

  // Each reader leaves `out` as it is when the key is absent.
  void string(const char* key, std::string& out) const;
  /// A string that must not be empty: "" is "expected `expected`, got
  /// nothing", never the default.
  void nonempty(const char* key, std::string& out, const char* expected) const;
  void boolean(const char* key, bool& out) const;
  template <typename Int>
  void integer(const char* key, Int& out, std::int64_t min, std::int64_t max) const {
    if (const toml::node* node = get(key)) {
      auto value = node->value_exact<std::int64_t>();
      if (!value || *value < min || *value > max) {
        fail(*node, key,
             "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
      }
      out = static_cast<Int>(*value);
    }
  }
  /// A finite number from min to max, the range in plain numbers
  /// (tier::values::range_text): no 1.79769e+308, no 0.000000.
  void real(const char* key, double& out, double min, double max) const;
  /// A string validated by `check`, which throws std::invalid_argument (a
  /// tier::values::ValueError gives its why(): the key is named already).
  void checked(const char* key, std::string& out,
               const std::function<void(const std::string&)>& check) const;

 private:
  const toml::table& table_;
  const ParseContext& context_;
  std::string prefix_;
};

}  // namespace tierd::detail
