// tierctl's value flags (see value_options.hpp).
#include "value_options.hpp"

#include <limits>
#include <utility>

namespace tierctl {

namespace values = tier::values;

std::vector<std::string> FlagText::texts() const {
  return option_ != nullptr ? option_->results() : std::vector<std::string>{};
}

CLI::Option* bind_text(CLI::App& cmd, const std::string& name, FlagText& flag,
                       const std::string& type, const std::string& help, bool repeatable) {
  flag.name_ = name;
  // No variable: CLI11 keeps the texts in results() exactly as typed.
  CLI::Option* option = cmd.add_option(name, help)->type_name(type)->expected(1);
  if (repeatable) {
    option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    // A positional takes every word left; an option one text per use.
    if (option->get_positional()) option->expected(1, CLI::detail::expected_max_vector_size);
  }
  flag.option_ = option;
  return option;
}

std::optional<unsigned> IdValue::get(const tier::CpuList& existing) const {
  if (!given()) return std::nullopt;
  return values::parse_id(name_, option_->results().front(), kind_, existing);
}

std::optional<tier::CpuList> IdListValue::get(const tier::CpuList& existing) const {
  if (!given()) return std::nullopt;
  std::vector<unsigned> ids;
  for (const std::string& text : texts()) {
    const tier::CpuList list = values::parse_id_list(name_, text, kind_, existing);
    ids.insert(ids.end(), list.ids().begin(), list.ids().end());
  }
  return tier::CpuList(std::move(ids));
}

std::vector<std::string> TextListValue::get() const {
  std::vector<std::string> out = texts();
  for (const std::string& text : out) {
    if (text.empty()) throw values::ValueError(name_, text, "expected a value, got nothing");
  }
  return out;
}

CLI::Option* add_pid_option(CLI::App& cmd, const std::string& name, Value<pid_t>& value,
                            const std::string& help) {
  return add_value_option<pid_t>(cmd, name, value, values::parse_pid, "PID", help);
}

CLI::Option* add_node_option(CLI::App& cmd, const std::string& name, IdValue& value,
                             const std::string& help) {
  return bind_text(cmd, name, value, "NODE", help);
}

CLI::Option* add_node_list_option(CLI::App& cmd, const std::string& name, IdListValue& value,
                                  const std::string& help) {
  return bind_text(cmd, name, value, "NODES", help, true);
}

CLI::Option* add_count_option(CLI::App& cmd, const std::string& name, Value<std::uint64_t>& value,
                              std::uint64_t min, std::uint64_t max, const std::string& help) {
  return add_value_option<std::uint64_t>(
      cmd, name, value,
      [min, max](std::string_view flag, std::string_view text) {
        return values::parse_count(flag, text, min, max);
      },
      "N", help);
}

CLI::Option* add_integer_option(CLI::App& cmd, const std::string& name, Value<std::int64_t>& value,
                                std::int64_t min, std::int64_t max, const std::string& help) {
  return add_value_option<std::int64_t>(
      cmd, name, value,
      [min, max](std::string_view flag, std::string_view text) {
        return values::parse_integer(flag, text, min, max);
      },
      "N", help);
}

CLI::Option* add_decimal_option(CLI::App& cmd, const std::string& name, Value<double>& value,
                                double min, double max, bool min_exclusive, const std::string& type,
                                const std::string& help) {
  return add_value_option<double>(
      cmd, name, value,
      [min, max, min_exclusive](std::string_view flag, std::string_view text) {
        return values::parse_decimal(flag, text, min, max, min_exclusive);
      },
      type, help);
}

CLI::Option* add_seconds_option(CLI::App& cmd, const std::string& name, Value<double>& value,
                                double max, const std::string& type, const std::string& help) {
  return add_decimal_option(cmd, name, value, 0, max, true, type, help);
}

CLI::Option* add_rate_option(CLI::App& cmd, const std::string& name, Value<double>& value,
                             const std::string& help) {
  return add_value_option<double>(
      cmd, name, value,
      [](std::string_view flag, std::string_view text) {
        return values::parse_rate_mbps(flag, text);
      },
      "MBPS", help);
}

CLI::Option* add_size_option(CLI::App& cmd, const std::string& name, Value<std::uint64_t>& value,
                             std::uint64_t min, std::uint64_t max, const std::string& help) {
  return add_value_option<std::uint64_t>(
      cmd, name, value,
      [min, max](std::string_view flag, std::string_view text) {
        return values::parse_size(flag, text, min, max);
      },
      "BYTES", help);
}

CLI::Option* add_duration_option(CLI::App& cmd, const std::string& name,
                                 Value<std::chrono::milliseconds>& value,
                                 std::chrono::milliseconds min, std::chrono::milliseconds max,
                                 std::chrono::milliseconds bare_unit, const std::string& type,
                                 const std::string& help) {
  return add_value_option<std::chrono::milliseconds>(
      cmd, name, value,
      [min, max, bare_unit](std::string_view flag, std::string_view text) {
        return values::parse_duration(flag, text, min, max, bare_unit);
      },
      type, help);
}

CLI::Option* add_range_option(CLI::App& cmd, const std::string& name,
                              Value<values::AddressRange>& value, const std::string& help) {
  return add_value_option<values::AddressRange>(cmd, name, value, values::parse_address_range,
                                                "START-END", help);
}

CLI::Option* add_text_option(CLI::App& cmd, const std::string& name, Value<std::string>& value,
                             const std::string& type, const std::string& help) {
  return add_value_option<std::string>(
      cmd, name, value,
      [type](std::string_view flag, std::string_view text) {
        if (text.empty()) {
          throw values::ValueError(std::string(flag), "", "expected " + type + ", got nothing");
        }
        return std::string(text);
      },
      type, help);
}

CLI::Option* add_choice_option(CLI::App& cmd, const std::string& name, Value<std::string>& value,
                               std::vector<std::string> choices, const std::string& help) {
  std::string words;
  std::string type;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    words += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    type += (i == 0 ? "" : "|") + choices[i];
  }
  return add_value_option<std::string>(
      cmd, name, value,
      [choices = std::move(choices), words](std::string_view flag, std::string_view text) {
        for (const std::string& choice : choices) {
          if (text == choice) return choice;
        }
        throw values::ValueError(std::string(flag), std::string(text),
                                 "expected " + words + (text.empty() ? ", got nothing" : ""));
      },
      type, help);
}

CLI::Option* add_output_file_option(CLI::App& cmd, const std::string& name,
                                    Value<std::filesystem::path>& value, const std::string& type,
                                    const std::string& help) {
  return add_value_option<std::filesystem::path>(
      cmd, name, value,
      [](std::string_view flag, std::string_view text) {
        const std::filesystem::path path(text);
        std::error_code ec;
        // An existing directory is the wrong kind: the grammar says so in its
        // words. Anything else (a missing directory, /dev/full) is the
        // writer's failure to report.
        if (path.empty() || std::filesystem::is_directory(path, ec)) {
          values::require_path(flag, path, values::PathKind::file);
        }
        return path;
      },
      type, help);
}

// ---- shared values -----------------------------------------------------------

tier::CpuList node_ids(const tier::Topology& topology) {
  std::vector<unsigned> ids;
  for (const tier::Node& node : topology.nodes()) ids.push_back(node.id);
  return tier::CpuList(std::move(ids));
}

std::string parse_pool(std::string_view name, std::string_view text) {
  if (text == "shared") return std::string(text);
  const std::string expected = "expected shared, numa:N, immovable:K or exclusive:K";
  for (std::string_view kind : {"numa", "immovable", "exclusive"}) {
    if (!text.starts_with(kind) || text.size() <= kind.size() || text[kind.size()] != ':') continue;
    const bool numa = kind == "numa";
    try {
      values::parse_count(name, text.substr(kind.size() + 1), numa ? 0 : 1,
                          numa ? kMaxNodeId : kMaxCpuCount);
    } catch (const values::ValueError& e) {
      throw values::ValueError(std::string(name), std::string(text),
                               std::string(kind) +
                                   (numa ? ":N takes a node number, " : ":K takes a CPU count, ") +
                                   e.why());
    }
    return std::string(text);
  }
  throw values::ValueError(std::string(name), std::string(text),
                           expected + (text.empty() ? ", got nothing" : ""));
}

std::string parse_quota(std::string_view name, std::string_view text) {
  const std::string expected =
      "expected a size (8G, 512M, 1048576), a share over 0 and at most 100 (25%, 12.5%) or none";
  if (text.empty()) throw values::ValueError(std::string(name), "", expected + ", got nothing");
  if (text == "none") return std::string(text);
  try {
    if (text.back() == '%') {
      values::parse_decimal(name, text.substr(0, text.size() - 1), 0, 100, true);
    } else {
      values::parse_size(name, text, 1, std::numeric_limits<std::uint64_t>::max());
    }
  } catch (const values::ValueError&) {
    throw values::ValueError(std::string(name), std::string(text), expected);
  }
  return std::string(text);
}

}  // namespace tierctl
