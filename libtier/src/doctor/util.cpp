// Text helpers shared by the checks.
#include <cstring>

#include "checks.hpp"

namespace tier::doctor {

std::string errno_text(int error) {
  // strerrorname_np gives the symbolic name users grep kernel sources for.
  const char* name = strerrorname_np(error);
  const char* text = strerrordesc_np(error);
  std::string out = name != nullptr ? name : "errno " + std::to_string(error);
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

}  // namespace tier::doctor
