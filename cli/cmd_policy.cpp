// `tierctl policy`: the placement policy tierd runs (policy.get / policy.set
// in docs/api.md).
#include <cstdint>
#include <iostream>
#include <limits>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_output.hpp"
#include "usage.hpp"
#include "value_options.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

struct PolicyOptions {
  bool json = false;
  Value<std::string> name;   // set
  TextListValue params;      // set: --param KEY=VALUE
  TextListValue positional;  // set: KEY=VALUE after the name
};

/// "true"/"false" -> bool, an integer -> int64, a decimal in plain notation
/// -> double (the value grammar's numbers), anything else -> the string
/// itself. tierd checks the types against the parameters the policy declares.
json::value param_value(const std::string& text) {
  namespace values = tier::values;
  if (text == "true") return true;
  if (text == "false") return false;
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  try {
    return values::parse_integer("", text, kMin, kMax);
  } catch (const values::ValueError&) {
  }
  try {
    return values::parse_decimal("", text, -std::numeric_limits<double>::max(),
                                 std::numeric_limits<double>::max());
  } catch (const values::ValueError&) {
  }
  return json::string(text);
}

/// KEY=VALUE items of `flag` into `params`; a key given twice (either
/// spelling) and an empty key or value are refused.
void add_params(const TextListValue& flag, const char* example, json::object& params) {
  for (const std::string& item : flag.texts()) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw tier::values::ValueError(flag.name(), item,
                                     std::string("expected KEY=VALUE, e.g. ") + example);
    }
    const std::string key = item.substr(0, eq);
    if (params.contains(key)) throw UsageError("parameter " + key + " given twice");
    params[key] = param_value(item.substr(eq + 1));
  }
}

std::string params_text(const json::value* params) {
  if (params == nullptr || !params->is_object() || params->get_object().empty()) return "(none)";
  std::string out;
  for (const auto& param : params->get_object()) {
    out += (out.empty() ? "" : ", ") + std::string(param.key()) + "=" + text(&param.value());
  }
  return out;
}

/// A declared parameter: a name, or {"name", "type", "default", "description", ...}.
std::string declared_param(const json::value& param) {
  if (!param.is_object()) return text(&param);
  std::string out = text(field(&param, "name"));
  std::string details;
  for (const auto& member : param.get_object()) {
    if (member.key() == "name" || member.key() == "description") continue;
    details +=
        (details.empty() ? "" : ", ") + std::string(member.key()) + " " + text(&member.value());
  }
  if (!details.empty()) out += " (" + details + ")";
  if (const json::value* description = field(&param, "description")) {
    out += ": " + text(description);
  }
  return out;
}

void render_policy(std::ostream& out, const json::value& result) {
  const std::string current = text(field(&result, "name"));
  out << "policy: " << current << "\n";
  out << "params: " << params_text(field(&result, "params")) << "\n";
  const json::array& available = elements(field(&result, "available"));
  if (available.empty()) return;
  out << "\navailable policies (* = running):\n";
  for (const json::value& policy : available) {
    const std::string name = text(field(&policy, "name"));
    out << (name == current && current != "-" ? "* " : "  ") << name << " - "
        << text(field(&policy, "description")) << "\n";
    for (const json::value& param : elements(field(&policy, "params"))) {
      out << "      --param " << declared_param(param) << "\n";
    }
  }
}

int run_get(const GlobalOptions& global, const PolicyOptions& options) {
  return run_daemon_method(global, "policy.get", nullptr, options.json, render_policy);
}

int run_set(const GlobalOptions& global, const PolicyOptions& options) {
  json::object request{{"name", options.name.required()}};
  json::object params;
  add_params(options.positional, "budget_mbps=200", params);
  add_params(options.params, "--param budget_mbps=200", params);
  if (!params.empty()) request["params"] = std::move(params);
  return run_daemon_method(global, "policy.set", request, options.json,
                           [](std::ostream& out, const json::value& result) {
                             out << "policy set.\n";
                             render_policy(out, result);
                           });
}

}  // namespace

void add_policy_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<PolicyOptions>();
  CLI::App* cmd = app.add_subcommand("policy", "Show or change tierd's placement policy");
  cmd->require_subcommand(0, 1);
  cmd->footer(
      "Without a subcommand: `get` (the running policy, its parameters, and every policy tierd\n"
      "knows with the parameters it declares; docs/api.md, policy.*).\n\n"
      "Examples:\n"
      "  tierctl policy\n"
      "  tierctl policy set static\n"
      "  tierctl policy set balanced budget_mbps=512 min_residency_s=10");
  cmd->add_flag("--json", options->json, "Print the policy.get result as is (docs/api.md)");

  set_usage(*cmd, "tierctl policy [get|set] [OPTIONS]");
  CLI::App* get = cmd->add_subcommand("get", "Show the running policy and the available ones");
  set_usage(*get, "tierctl policy get [--json]");
  get->add_flag("--json", options->json, "Print the policy.get result as is (docs/api.md)");
  get->callback([&global, &action, options] {
    action = [&global, options] { return run_get(global, *options); };
  });

  CLI::App* set = cmd->add_subcommand("set", "Switch to a policy and/or set its parameters");
  set->footer(
      "Parameter values that read as numbers or true/false are sent as such, others as\n"
      "strings; tierd validates them against the policy's declared parameters and keeps the\n"
      "running policy when they are wrong.\n\n"
      "Examples:\n"
      "  tierctl policy set static\n"
      "  tierctl policy set balanced budget_mbps=512 min_residency_s=10\n"
      "  tierctl policy set balanced --param budget_mbps=512");
  set_usage(*set, "tierctl policy set NAME [KEY=VALUE]... [--param KEY=VALUE]... [--json]");
  add_text_option(*set, "NAME", options->name, "NAME", "Policy name (see `tierctl policy`)")
      ->required();
  bind_text(*set, "KEY=VALUE", options->positional, "KEY=VALUE",
            "Policy parameters, as --param takes them", true);
  bind_text(*set, "--param", options->params, "KEY=VALUE", "A policy parameter (repeatable)", true);
  set->add_flag("--json", options->json, "Print the policy.set result as is (docs/api.md)");
  set->callback([&global, &action, options] {
    action = [&global, options] { return run_set(global, *options); };
  });

  cmd->callback([&global, &action, options, cmd] {
    if (cmd->get_subcommands().empty()) {
      action = [&global, options] { return run_get(global, *options); };
    }
  });
}

}  // namespace tierctl
