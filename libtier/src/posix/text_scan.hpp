// Internal: the few tokenising helpers the /proc and /sys parsers share.
// Header-only and allocation-free; every parser of kernel text uses these
// instead of its own copy. trim and join, which the daemon and tier_core
// need too, are public beside them: tier/posix/text.hpp.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tier::text {

/// The next space/tab separated token of `rest`, which is advanced past it;
/// empty when nothing is left.
inline std::string_view next_token(std::string_view& rest) {
  std::size_t begin = rest.find_first_not_of(" \t");
  if (begin == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(begin);
  std::size_t end = rest.find_first_of(" \t");
  std::string_view token = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  return token;
}

/// The whole of `text` as an unsigned number in `base`; nullopt otherwise.
inline std::optional<std::uint64_t> parse_u64(std::string_view text, int base = 10) {
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

/// Calls fn(line) for each line of `text`, without its '\n' (or "\r\n");
/// a last line without a newline counts, an empty text has none.
template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace tier::text
