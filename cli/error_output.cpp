// Printing errors (see error_output.hpp).
#include "error_output.hpp"

#include <iostream>

#include "tier/json/json_text.hpp"

namespace tierctl {

boost::json::object error_json(std::string_view code, std::string_view message) {
  boost::json::object out;
  add_error(out, code, message);
  return out;
}

void add_error(boost::json::object& result, std::string_view code, std::string_view message) {
  result["error"] = boost::json::object{{"code", code}, {"message", message}};
}

int print_error(const ErrorReport& report, bool json) {
  if (json) std::cout << tier::json_text(error_json(report.code, report.message)) << "\n";
  std::cout.flush();
  std::cerr << report.prefix << ": " << report.message << "\n";
  if (!report.usage.empty()) {
    std::cerr << "Usage: " << report.usage << "\n"
              << "Run '" << report.help_command << " --help' for more.\n";
  }
  return report.exit_code;
}

}  // namespace tierctl
