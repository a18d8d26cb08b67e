#include "tier/cpu/cpulist.hpp"

#include <algorithm>
#include <charconv>

#include "tier/posix/text.hpp"

namespace tier {

namespace {

using text::trim;

std::optional<unsigned> parse_number(std::string_view text, int base = 10) {
  text = trim(text);
  unsigned value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

CpuList::CpuList(std::vector<unsigned> ids) : ids_(std::move(ids)) {
  std::sort(ids_.begin(), ids_.end());
  ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
}

std::optional<CpuList> CpuList::parse(std::string_view text) {
  text = trim(text);
  std::vector<unsigned> ids;
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    auto dash = item.find('-');
    auto first = parse_number(item.substr(0, dash));
    if (!first) return std::nullopt;
    unsigned last = *first;
    if (dash != std::string_view::npos) {
      auto parsed = parse_number(item.substr(dash + 1));
      if (!parsed || *parsed < *first) return std::nullopt;
      last = *parsed;
    }
    // Guard against absurd ranges in corrupt files (sysfs never exceeds this).
    if (last - *first > (1U << 20)) return std::nullopt;
    for (unsigned id = *first; id <= last; ++id) ids.push_back(id);
  }
  return CpuList(std::move(ids));
}

std::optional<CpuList> CpuList::parse_mask(std::string_view text) {
  text = trim(text);
  std::vector<unsigned> ids;
  // Words are 32-bit hex, most significant first, separated by commas.
  std::vector<std::string_view> words;
  while (!text.empty()) {
    auto comma = text.find(',');
    words.push_back(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  unsigned bit_base = 0;
  for (auto it = words.rbegin(); it != words.rend(); ++it, bit_base += 32) {
    std::string_view word = trim(*it);
    if (word.starts_with("0x")) word.remove_prefix(2);
    if (word.size() > 8) return std::nullopt;
    auto value = parse_number(word, 16);
    if (!value) return std::nullopt;
    for (unsigned bit = 0; bit < 32; ++bit) {
      if ((*value >> bit) & 1U) ids.push_back(bit_base + bit);
    }
  }
  return CpuList(std::move(ids));
}

bool CpuList::contains(unsigned id) const {
  return std::binary_search(ids_.begin(), ids_.end(), id);
}

std::string CpuList::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < ids_.size();) {
    std::size_t j = i;
    while (j + 1 < ids_.size() && ids_[j + 1] == ids_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids_[i]);
    if (j > i) out += '-' + std::to_string(ids_[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace tier
