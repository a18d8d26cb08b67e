// docs/configuration.md against the parser: the documented keys are exactly
// the keys the parser reads; each documented default is the parser's default;
// each documented example is accepted and changes the configuration; the embedded default file says
// the same as the built-in defaults.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "config.hpp"

namespace tierd {
namespace {

struct DocumentedKey {
  std::string key, default_value, example;
};

std::vector<DocumentedKey> documented_keys() {
  std::ifstream in(std::string(TIER_SOURCE_DIR) + "/docs/configuration.md");
  std::stringstream text;
  text << in.rdbuf();
  // | `key` | type | `default` or (required) | `example` | meaning |
  static const std::regex row(
      R"(^\| `([a-z_.]+)` \| [^|]+ \| (`([^`]*)`|\(required\)) \| `([^`]*)` \|)");
  std::vector<DocumentedKey> keys;
  std::string line;
  while (std::getline(text, line)) {
    std::smatch match;
    if (std::regex_search(line, match, row)) {
      keys.push_back({match[1], match[2] == "(required)" ? "" : std::string(match[3]), match[4]});
    }
  }
  return keys;
}

// TOML setting one key: "[table]\nname = value", or for the keys of an array
// of tables an entry with its required key (unless it is the one set).
std::string toml_with(const std::string& key, const std::optional<std::string>& value) {
  for (const auto& [table, required, required_value] :
       {std::tuple<std::string, std::string, std::string>{"workloads.watch", "parent",
                                                          "\"/sys/fs/cgroup/x\""},
        {"workloads.rule", "match", "\"x\""}}) {
    if (key.rfind(table + ".", 0) == 0) {
      const std::string name = key.substr(table.size() + 1);
      std::string text = "[[" + table + "]]\n";
      if (name != required) text += required + " = " + required_value + "\n";
      if (value) text += name + " = " + *value + "\n";
      return text;
    }
  }
  // Keys whose example only means something beside another key: the
  // parameters are those of the policy the table names.
  static const std::map<std::string, std::string> kContext{
      {"policy.params", "name = \"balanced\""}};
  const std::size_t dot = key.rfind('.');
  std::string text = "[" + key.substr(0, dot) + "]\n";
  if (auto context = kContext.find(key); context != kContext.end()) text += context->second + "\n";
  if (value) text += key.substr(dot + 1) + " = " + *value + "\n";
  return text;
}

TEST(ConfigurationDoc, DocumentsExactlyTheKeysTheParserReads) {
  std::set<std::string> documented, parsed;
  for (const DocumentedKey& key : documented_keys()) {
    EXPECT_TRUE(documented.insert(key.key).second) << key.key << " documented twice";
  }
  for (const std::string& key : config_keys()) parsed.insert(key);
  ASSERT_GT(documented.size(), 15u) << "the key table was not found";
  for (const std::string& key : parsed) {
    EXPECT_TRUE(documented.contains(key)) << key << " is read by the parser but not documented";
  }
  for (const std::string& key : documented) {
    EXPECT_TRUE(parsed.contains(key)) << key << " is documented but the parser does not read it";
  }
}

TEST(ConfigurationDoc, DefaultsAreTheParsersAndExamplesAreRead) {
  for (const DocumentedKey& doc : documented_keys()) {
    SCOPED_TRACE(doc.key);
    // A required key's base is no entry at all.
    const Config base = doc.default_value.empty()
                            ? parse_config("", "doc.toml")
                            : parse_config(toml_with(doc.key, std::nullopt), "doc.toml");
    if (!doc.default_value.empty()) {
      EXPECT_EQ(parse_config(toml_with(doc.key, doc.default_value), "doc.toml"), base)
          << "documented default " << doc.default_value << " is not the parser's default";
    }
    // A documented example is one a user may copy: the parser must accept it
    // and it must change what the key sets (else the parser never read it).
    try {
      Config with_example = parse_config(toml_with(doc.key, doc.example), "doc.toml");
      EXPECT_NE(with_example, base) << "example " << doc.example << " changed nothing";
    } catch (const ConfigError& e) {
      ADD_FAILURE() << "documented example " << doc.example << " is refused: " << e.what();
    }
  }
}

TEST(ConfigurationDoc, EmbeddedDefaultFileEqualsTheBuiltInDefaults) {
  EXPECT_EQ(parse_config(embedded_default_config(), "<embedded>"), parse_config("", "empty"));
  EXPECT_EQ(parse_config("", "empty"), Config{});
}

}  // namespace
}  // namespace tierd
