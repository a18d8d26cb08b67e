// libFuzzer target: arbitrary bytes as a tierd configuration file.
//
// parse_config's contract (daemon/config.hpp) is: return a Config or throw
// ConfigError whose message names the file and the line. Anything else is a
// finding: another exception type escaping (tierd's main would die with
// std::terminate instead of printing the error), a message without the
// origin, a Config that violates what the parser promises to have checked,
// or any crash or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "config.hpp"

namespace {

constexpr const char* kOrigin = "<fuzz>";

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_config: %s: %s\n", what, detail.c_str());
  std::abort();
}

void check_error_names_origin(const tierd::ConfigError& error) {
  // "<fuzz>:LINE: ..." : the file, then a line number.
  const std::string message = error.what();
  const std::string prefix = std::string(kOrigin) + ":";
  if (message.rfind(prefix, 0) != 0 || message.size() <= prefix.size() ||
      message[prefix.size()] < '0' || message[prefix.size()] > '9') {
    finding("ConfigError does not start with origin:line", message);
  }
}

void check_config(const tierd::Config& config) {
  static const std::set<std::string> levels{"error", "warn", "info", "debug"};
  if (!levels.contains(config.log_level)) {
    finding("accepted an undocumented log_level", config.log_level);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    check_config(tierd::parse_config(text, kOrigin));
  } catch (const tierd::ConfigError& error) {
    check_error_names_origin(error);
  } catch (const std::exception& error) {
    finding("unexpected exception type", error.what());
  }
  return 0;
}
