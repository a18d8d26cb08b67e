#include "workloads/pod_overrides.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <sstream>

#include "tier/cpu/pool_spec.hpp"

namespace tierd {

namespace {

const std::vector<std::string> kEntryKeys{"uid", "match", "class", "pool", "quota"};

std::string where(const std::string& origin, const toml::node& node) {
  return origin + ":" + std::to_string(node.source().begin.line);
}

[[noreturn]] void fail(const std::string& origin, const toml::node& node, const std::string& key,
                       const std::string& what) {
  throw PodOverridesError(where(origin, node) + ": key '" + key + "': " + what);
}

// One [[pod]] table: each key read at most once, with its dotted name
// ("pod[2].class") in every error.
class EntryReader {
 public:
  EntryReader(const toml::table& table, const std::string& origin, std::string prefix)
      : table_(table), origin_(origin), prefix_(std::move(prefix)) {
    for (const auto& [key, node] : table_) {
      const std::string name(key.str());
      if (std::find(kEntryKeys.begin(), kEntryKeys.end(), name) == kEntryKeys.end()) {
        fail(origin_, node, prefix_ + name,
             "unknown key (expected uid, match, class, pool, quota)");
      }
    }
  }

  /// The string at `key` checked by `check` (which throws std::invalid_argument), or nullopt.
  template <typename T>
  std::optional<T> read(const char* key, const std::function<T(const std::string&)>& check) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr) return std::nullopt;
    auto text = node->value<std::string>();
    if (!text) fail(origin_, *node, prefix_ + key, "expected a string");
    try {
      return check(*text);
    } catch (const std::invalid_argument& e) {
      fail(origin_, *node, prefix_ + key, e.what());
    }
  }

  [[noreturn]] void fail_entry(const std::string& what) const {
    throw PodOverridesError(where(origin_, table_) + ": " + what);
  }

 private:
  const toml::table& table_;
  const std::string& origin_;
  std::string prefix_;
};

std::string nonempty_uid(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("expected a pod uid");
  std::string uid = normalize_pod_uid(text);
  if (!std::all_of(uid.begin(), uid.end(), [](char c) { return std::isxdigit(c) || c == '-'; })) {
    throw std::invalid_argument("\"" + text + "\" is not a pod uid (hex digits and dashes)");
  }
  return uid;
}

std::string valid_regex(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("expected a non-empty regex");
  try {
    std::regex compiled(text);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("\"" + text + "\" is not a valid regex: " + e.what());
  }
  return text;
}

WorkloadClass valid_class(const std::string& text) {
  if (auto cls = parse_workload_class(text)) return *cls;
  throw std::invalid_argument("\"" + text + "\": expected \"online\", \"offline\" or \"default\"");
}

std::string valid_pool(const std::string& text) {
  std::string error;
  if (!tier::cpu::PoolSpec::parse(text, &error)) throw std::invalid_argument(error);
  return text;
}

PodOverride read_entry(const toml::table& table, const std::string& origin,
                       const std::string& prefix) {
  EntryReader reader(table, origin, prefix);
  PodOverride entry;
  entry.where = where(origin, table);
  entry.uid = reader.read<std::string>("uid", nonempty_uid).value_or("");
  entry.match = reader.read<std::string>("match", valid_regex).value_or("");
  if (entry.uid.empty() == entry.match.empty()) {
    reader.fail_entry("key '" + prefix.substr(0, prefix.size() - 1) +
                      "': expected exactly one of uid and match");
  }
  entry.workload_class = reader.read<WorkloadClass>("class", valid_class);
  entry.pool = reader.read<std::string>("pool", valid_pool);
  entry.quota =
      reader.read<Quota>("quota", [](const std::string& text) { return parse_quota(text); });
  if (!entry.workload_class && !entry.pool && !entry.quota) {
    reader.fail_entry("key '" + prefix.substr(0, prefix.size() - 1) +
                      "': sets nothing (expected class, pool or quota)");
  }
  return entry;
}

}  // namespace

std::string normalize_pod_uid(std::string_view uid) {
  std::string out(uid);
  for (char& c : out) {
    if (c == '_') c = '-';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

PodOverrides PodOverrides::parse(const std::string& text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw PodOverridesError(origin + ":" + std::to_string(e.source().begin.line) + ": " +
                            std::string(e.description()));
  }
  PodOverrides overrides;
  for (const auto& [key, node] : root) {
    if (key.str() != "pod")
      fail(origin, node, std::string(key.str()), "unknown key (expected [[pod]])");
  }
  const toml::node* node = root.get("pod");
  if (node == nullptr) return overrides;
  const toml::array* array = node->as_array();
  if (array == nullptr) fail(origin, *node, "pod", "expected an array of tables ([[pod]])");
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string name = "pod[" + std::to_string(i) + "]";
    const toml::table* table = array->get(i)->as_table();
    if (table == nullptr) fail(origin, *array->get(i), name, "expected a table");
    PodOverride entry = read_entry(*table, origin, name + ".");
    overrides.patterns_.push_back(entry.match.empty() ? std::nullopt
                                                      : std::optional<std::regex>(entry.match));
    overrides.entries_.push_back(std::move(entry));
  }
  return overrides;
}

PodOverrides PodOverrides::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw PodOverridesError(path + ": cannot read pod override file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

const PodOverride* PodOverrides::find(std::string_view uid) const {
  const std::string key(uid);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const bool hit = patterns_[i] ? std::regex_match(key, *patterns_[i]) : entries_[i].uid == key;
    if (hit) return &entries_[i];
  }
  return nullptr;
}

}  // namespace tierd
