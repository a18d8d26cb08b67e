// The string helpers every module shares: trimming and joining. Header-only,
// so tier_core (libtier/CMakeLists.txt) and the daemon use them without
// libtier.so. The tokenisers of kernel text sit beside them, private to the
// library, in libtier/src/posix/text_scan.hpp.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace tier::text {

/// `text` without leading and trailing whitespace (std::isspace).
inline std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

/// The parts with `separator` between them; "" for none.
inline std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

}  // namespace tier::text
