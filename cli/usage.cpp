// Usage lines and parse errors in tierctl's words (see usage.hpp).
#include "usage.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace tierctl {

namespace {

/// CLI11's formatter with each command's own usage line.
class UsageFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    const auto it = lines_.find(app);
    if (it == lines_.end()) return CLI::Formatter::make_usage(app, std::move(name));
    return "Usage: " + it->second + "\n";
  }
  void set(const CLI::App* app, std::string line) { lines_[app] = std::move(line); }
  const std::string* find(const CLI::App* app) const {
    const auto it = lines_.find(app);
    return it == lines_.end() ? nullptr : &it->second;
  }

 private:
  std::map<const CLI::App*, std::string> lines_;
};

std::shared_ptr<UsageFormatter> formatter_of(const CLI::App& cmd) {
  return std::dynamic_pointer_cast<UsageFormatter>(cmd.get_formatter());
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

/// Optimal string alignment distance: Levenshtein plus adjacent swaps.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

/// The named subcommands of `cmd` (option groups are unnamed subcommands).
std::vector<std::string> subcommand_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::App* sub :
       cmd.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); })) {
    names.push_back(sub->get_name());
  }
  return names;
}

/// Every spelling of `cmd`'s options (and those of its option groups).
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* option : cmd.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  for (const CLI::App* group :
       cmd.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); })) {
    const std::vector<std::string> inner = option_names(*group);
    names.insert(names.end(), inner.begin(), inner.end());
  }
  return names;
}

std::string suggestion(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::optional<std::string> near = closest(typed, candidates);
  return near ? " (did you mean '" + *near + "'?)" : "";
}

/// An option or positional as the usage shows it: "--to NODE", "ID|PID".
std::string spelled(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* option = cmd.get_option_no_throw(name);
  if (option == nullptr) return name;
  const std::string type = option->get_type_name();
  if (option->get_positional()) return type.empty() ? name : type;
  return type.empty() || option->get_expected_min() == 0 ? name : name + " " + type;
}

/// "a", "a or b", "a, b or c".
std::string either(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  }
  return out;
}

/// Words CLI11 could not place: an unknown option, an unknown subcommand of
/// a command that has some, or one argument too many.
std::string explain_leftovers(const CLI::App& failing, const std::vector<std::string>& leftovers) {
  const std::string& word = leftovers.front();
  const std::string more = leftovers.size() > 1
                               ? " (and " + std::to_string(leftovers.size() - 1) + " more)"
                               : std::string();
  const bool negative_number =
      word.size() > 1 && word[0] == '-' && std::isdigit(static_cast<unsigned char>(word[1])) != 0;
  if (word.size() > 1 && word[0] == '-' && !negative_number) {
    const std::string flag = word.substr(0, word.find('='));
    return "unknown option '" + flag + "'" + suggestion(flag, option_names(failing)) + more;
  }
  const std::vector<std::string> commands = subcommand_names(failing);
  if (!commands.empty()) return "unknown command '" + word + "'" + suggestion(word, commands);
  return "unexpected argument '" + word + "'" + more;
}

std::string explain_required(const CLI::App& app, const CLI::App& failing,
                             const std::string& what) {
  if (starts_with(what, "A subcommand") || starts_with(what, "Requires at least")) {
    const std::vector<std::string> leftovers = app.remaining(true);
    if (!leftovers.empty()) return explain_leftovers(failing, leftovers);
    return "missing COMMAND (one of " + either(subcommand_names(failing)) + ")";
  }
  // An option group: "Exactly 1 option from [--pid,--cgroup] ...".
  if (const auto open = what.find(" option from ["); open != std::string::npos) {
    const auto close = what.find(']', open);
    std::vector<std::string> names;
    std::string list = what.substr(open + 14, close - open - 14);
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      names.push_back(spelled(failing, list.substr(start, comma - start)));
      start = comma + 1;
    }
    if (what.find("were given") != std::string::npos) {
      return either(names) + " exclude each other: give exactly one";
    }
    return "give " + std::string(names.size() > 1 ? "one of " : "") + either(names);
  }
  const std::string suffix = " is required";
  if (what.size() > suffix.size() && what.ends_with(suffix)) {
    return "missing " + spelled(failing, what.substr(0, what.size() - suffix.size()));
  }
  return "a required option is missing";
}

/// The flag name CLI11 put before ": " or between `before` and `after`.
std::string name_between(const std::string& what, const std::string& before,
                         const std::string& after) {
  const auto start = what.find(before);
  if (start == std::string::npos) return "";
  const auto from = start + before.size();
  const auto end = what.find(after, from);
  return end == std::string::npos ? "" : what.substr(from, end - from);
}

std::string explain_mismatch(const CLI::App& failing, const std::string& what) {
  const std::string name = what.substr(0, what.find(':'));
  if (what.find(" required ") != std::string::npos && what.ends_with(" missing")) {
    return name + " needs a value" +
           (spelled(failing, name) == name ? "" : " (" + spelled(failing, name) + ")");
  }
  if (what.find(": At Most ") != std::string::npos) {
    return name + " given more than once: give it once";
  }
  if (what.find(": At least ") != std::string::npos) return name + " needs more values";
  if (what.ends_with(" was given a disallowed flag override")) {
    return what.substr(0, what.find(' ')) + " takes no value";
  }
  const std::string counted = name_between(what, " arguments to ", ", got");
  if (!counted.empty()) return counted + ": wrong number of values";
  return "wrong number of values";
}

/// A switch (--json) given a value it cannot read as true/false.
std::string switch_value(const CLI::App& failing, const std::string& name,
                         const std::string& value) {
  const CLI::Option* option = failing.get_option_no_throw(name);
  if (option != nullptr && option->get_expected_min() == 0) {
    return name + " is a switch: it takes no value (got '" + value + "')";
  }
  return name + " '" + value + "': not a value it takes";
}

std::string explain_conversion(const CLI::App& failing, const std::string& what) {
  if (what.ends_with(": Should be true/false or a number") ||
      what.ends_with(": too many inputs for a flag")) {
    return what.substr(0, what.find(':')) + " is a switch: it takes no value";
  }
  if (starts_with(what, "Could not convert: ")) {
    const std::string rest = what.substr(19);
    const auto eq = rest.find(" = ");
    if (eq != std::string::npos)
      return switch_value(failing, rest.substr(0, eq), rest.substr(eq + 3));
  }
  const std::string value = name_between(what, "The value ", " is not an allowed value for ");
  if (!value.empty()) {
    return what.substr(what.rfind(' ') + 1) + " '" + value + "': not a value it takes";
  }
  return "a value could not be read";
}

}  // namespace

std::shared_ptr<CLI::Formatter> make_usage_formatter() {
  return std::make_shared<UsageFormatter>();
}

void set_usage(CLI::App& cmd, std::string line) {
  if (auto formatter = formatter_of(cmd)) formatter->set(&cmd, std::move(line));
}

std::string usage_line(const CLI::App& cmd) {
  if (auto formatter = formatter_of(cmd)) {
    if (const std::string* line = formatter->find(&cmd)) return *line;
  }
  return command_path(cmd) + " [OPTIONS]";
}

std::string command_path(const CLI::App& cmd) {
  std::string path = cmd.get_name();
  for (const CLI::App* parent = cmd.get_parent(); parent != nullptr;
       parent = parent->get_parent()) {
    path = parent->get_name() + " " + path;
  }
  return path;
}

const CLI::App& selected_command(const CLI::App& app) {
  const CLI::App* at = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : at->get_subcommands()) {
      if (sub->get_name().empty()) continue;  // an option group
      at = sub;
      deeper = true;
      break;
    }
  }
  return *at;
}

std::string explain_parse_error(const CLI::App& app, const CLI::App& failing,
                                const CLI::ParseError& error) {
  // By type, not get_name(): CLI11 names some errors after the app
  // (ExtrasError thrown for "tierctl" is called "tierctl").
  const std::string what = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    const std::vector<std::string> leftovers = app.remaining(true);
    if (!leftovers.empty()) return explain_leftovers(failing, leftovers);
    return "unexpected arguments";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    return explain_required(app, failing, what);
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    return explain_mismatch(failing, what);
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) {
    return explain_conversion(failing, what);
  }
  // Validators are tierctl's own and word their message: "NAME: why".
  if (dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) return what;
  if (dynamic_cast<const CLI::ExcludesError*>(&error) != nullptr) {
    const auto at = what.find(" excludes ");
    if (at != std::string::npos) {
      return what.substr(0, at) + " and " + what.substr(at + 10) + " exclude each other";
    }
  }
  if (dynamic_cast<const CLI::RequiresError*>(&error) != nullptr) {
    const auto at = what.find(" requires ");
    if (at != std::string::npos) return what.substr(0, at) + " needs " + what.substr(at + 10);
  }
  return "the command line cannot be read";
}

std::optional<std::string> closest(std::string_view typed,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(typed, candidate);
    if (distance < best_distance && distance < typed.size()) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (best || typed.size() < 3) return best;
  for (const std::string& candidate : candidates) {
    if (!starts_with(candidate, typed)) continue;
    if (best) return std::nullopt;  // two commands begin so: no guess
    best = candidate;
  }
  return best;
}

}  // namespace tierctl
