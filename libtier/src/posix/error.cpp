// errno_text (tier/posix/error.hpp).
#include "tier/posix/error.hpp"

#include <cstring>

namespace tier::posix {

std::string errno_text(int error) {
  // strerrorname_np gives the symbolic name users grep kernel sources for.
  const char* name = strerrorname_np(error);
  const char* text = strerrordesc_np(error);
  std::string out = name != nullptr ? name : "errno " + std::to_string(error);
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

}  // namespace tier::posix
