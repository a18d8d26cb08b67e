// /proc/PID/maps and /proc/PID/smaps parsing (pure; fixture-tested).
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <algorithm>
#include <map>
#include <sstream>
#include "posix/text_scan.hpp"
#include "tier/memory/residency.hpp"

namespace tier {

namespace {

using text::next_token;

using text::parse_u64;

using text::for_each_line;

bool is_lower_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// "start-end perms offset dev inode [path]"
std::optional<Mapping> parse_maps_line(std::string_view line) {
  std::string_view rest = line;
  std::string_view range = next_token(rest);
  std::size_t dash = range.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto start = parse_u64(range.substr(0, dash), 16);
  auto end = parse_u64(range.substr(dash + 1), 16);
  std::string_view perms = next_token(rest);
  auto offset = parse_u64(next_token(rest), 16);
  std::string_view dev = next_token(rest);
  auto inode = parse_u64(next_token(rest), 10);
  if (!start || !end || *end < *start || perms.size() != 4 || !offset || dev.empty() || !inode) {
    return std::nullopt;
  }
  Mapping mapping;
  mapping.start = *start;
  mapping.end = *end;
  mapping.perms = std::string(perms);
  mapping.offset = *offset;
  mapping.inode = *inode;
  std::size_t path_begin = rest.find_first_not_of(" \t");
  if (path_begin != std::string_view::npos) mapping.path = std::string(rest.substr(path_begin));
  return mapping;
}

bool looks_like_header(std::string_view line) {
  std::size_t dash = line.find('-');
  std::size_t space = line.find(' ');
  if (dash == std::string_view::npos || dash == 0 || space == std::string_view::npos ||
      dash > space) {
    return false;
  }
  for (std::size_t i = 0; i < space; ++i) {
    if (i != dash && !is_lower_hex(line[i])) return false;
  }
  return true;
}

}  // namespace

std::vector<Mapping> parse_maps(std::string_view text) {
  std::vector<Mapping> out;
  for_each_line(text, [&](std::string_view line) {
    if (auto mapping = parse_maps_line(line)) out.push_back(std::move(*mapping));
  });
  return out;
}

std::vector<Mapping> parse_smaps(std::string_view text) {
  std::vector<Mapping> out;
  bool current = false;  // a header line was accepted and fields belong to out.back()
  for_each_line(text, [&](std::string_view line) {
    if (looks_like_header(line)) {
      auto mapping = parse_maps_line(line);
      current = mapping.has_value();
      if (current) out.push_back(std::move(*mapping));
      return;
    }
    if (!current) return;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = line.substr(0, colon);
    std::string_view rest = line.substr(colon + 1);
    auto value = parse_u64(next_token(rest), 10);
    if (!value) return;
    std::string_view unit = next_token(rest);
    std::uint64_t bytes = unit == "kB" ? *value * 1024 : *value;
    Mapping& mapping = out.back();
    if (key == "KernelPageSize") {
      mapping.kernel_page_size = bytes;
    } else if (key == "Rss") {
      mapping.rss_bytes = bytes;
    } else if (key == "AnonHugePages") {
      mapping.anon_huge_bytes = bytes;
    } else if (key == "FilePmdMapped") {
      mapping.file_pmd_bytes = bytes;
    } else if (key == "Shared_Hugetlb" || key == "Private_Hugetlb") {
      mapping.hugetlb_bytes += bytes;
    }
  });
  return out;
}

// Kernel-provided special mappings: not the process's memory, not movable, and
// not counted by /proc/PID/numa_maps either (which tierctl stats is compared to).
bool skip_mapping(const Mapping& mapping) {
  return mapping.path == "[vsyscall]" || mapping.path == "[vdso]" ||
         mapping.path.starts_with("[vvar");
}

std::map<std::uint64_t, NumaMapsEntry> parse_numa_maps(std::string_view text) {
  std::map<std::uint64_t, NumaMapsEntry> entries;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    std::uint64_t start = 0;
    auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), start, 16);
    if (ec != std::errc() || ptr != word.data() + word.size()) continue;
    NumaMapsEntry entry;
    while (words >> word) {
      // "N2=8192" and "kernelpagesize_kB=4"; everything else is not counted.
      auto eq = word.find('=');
      if (eq == std::string::npos) continue;
      std::uint64_t value = 0;
      auto [vptr, vec] = std::from_chars(word.data() + eq + 1, word.data() + word.size(), value);
      if (vec != std::errc() || vptr != word.data() + word.size()) continue;
      if (word.size() > 1 && word[0] == 'N' && eq > 1) {
        unsigned node = 0;
        auto [nptr, nec] = std::from_chars(word.data() + 1, word.data() + eq, node);
        if (nec == std::errc() && nptr == word.data() + eq) entry.pages[node] = value;
      } else if (word.compare(0, eq, "kernelpagesize_kB") == 0) {
        entry.page_size = value * 1024;
      }
    }
    entries[start] = std::move(entry);
  }
  return entries;
}

std::optional<std::vector<Mapping>> read_mappings(const SysRoot& root, int pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  if (auto smaps = root.read(proc + "/smaps")) return parse_smaps(*smaps);
  if (auto maps = root.read(proc + "/maps")) return parse_maps(*maps);
  return std::nullopt;
}

std::vector<Mapping> placeable_mappings(const SysRoot& root, int pid) {
  std::vector<Mapping> out;
  for (Mapping& m : read_mappings(root, pid).value_or(std::vector<Mapping>{})) {
    if (!skip_mapping(m) && !sparse_mapping(m)) out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  return out;
}

bool sparse_mapping(const Mapping& mapping) {
  constexpr std::uint64_t kMinSparseBytes = 1ull << 30;  // 1 GiB of address space
  constexpr std::uint64_t kSparseRatio = 64;             // at most 1/64 of it resident
  if (!mapping.rss_bytes || mapping.size() < kMinSparseBytes) return false;
  return std::max<std::uint64_t>(*mapping.rss_bytes, kBasePageSize) * kSparseRatio < mapping.size();
}

}  // namespace tier
