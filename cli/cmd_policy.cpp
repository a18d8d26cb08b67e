// `tierctl policy`: the placement policy tierd runs (policy.get / policy.set
// in docs/api.md).
#include <cmath>
#include <iostream>

#include <boost/json.hpp>

#include "command.hpp"
#include "daemon_output.hpp"

namespace tierctl {

namespace {

namespace json = boost::json;

struct PolicyOptions {
  bool json = false;
  std::string name;                     // set
  std::vector<std::string> params;      // set: --param KEY=VALUE
  std::vector<std::string> positional;  // set: KEY=VALUE after the name
};

/// "true"/"false" -> bool, an integer -> int64, a finite decimal -> double,
/// anything else -> the string itself. tierd checks the types against the
/// parameters the policy declares.
json::value param_value(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  if (!text.empty()) {
    try {
      std::size_t used = 0;
      long long integer = std::stoll(text, &used);
      if (used == text.size()) return integer;
    } catch (const std::exception&) {
    }
    try {
      std::size_t used = 0;
      double real = std::stod(text, &used);
      // stod takes "nan", "inf" and hex; only plain decimals are numbers here.
      if (used == text.size() && std::isfinite(real) &&
          text.find_first_not_of("0123456789+-.eE") == std::string::npos) {
        return real;
      }
    } catch (const std::exception&) {
    }
  }
  return json::string(text);
}

json::object parse_params(const std::vector<std::string>& items) {
  json::object params;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--param '" + item + "': expected KEY=VALUE, e.g. --param budget_mbps=200");
    }
    std::string key = item.substr(0, eq);
    if (params.contains(key)) throw UsageError("--param " + key + " given twice");
    params[key] = param_value(item.substr(eq + 1));
  }
  return params;
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
  json::object request{{"name", options.name}};
  std::vector<std::string> all = options.positional;
  all.insert(all.end(), options.params.begin(), options.params.end());
  if (!all.empty()) request["params"] = parse_params(all);
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

  CLI::App* get = cmd->add_subcommand("get", "Show the running policy and the available ones");
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
  set->add_option("NAME", options->name, "Policy name (see `tierctl policy`)")->required();
  // Both spellings of a parameter are checked alike; `example` is how the
  // error message shows the right form.
  auto key_value = [](std::string example) {
    return CLI::Validator(
        [example](std::string& item) -> std::string {
          auto eq = item.find('=');
          if (eq == std::string::npos || eq == 0) return "expected KEY=VALUE, e.g. " + example;
          return {};
        },
        "");
  };
  set->add_option("KEY=VALUE", options->positional, "Policy parameters, as --param takes them")
      ->check(key_value("budget_mbps=200"));
  set->add_option("--param", options->params, "A policy parameter (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false)
      ->check(key_value("--param budget_mbps=200"));
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
