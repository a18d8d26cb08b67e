#include "workloads/procfs.hpp"

#include <charconv>
#include <filesystem>

namespace tierd::detail {

namespace {

/// Next space-separated token of `text` starting at `pos`.
std::string_view next_token(std::string_view text, std::size_t& pos) {
  while (pos < text.size() && text[pos] == ' ') ++pos;
  std::size_t begin = pos;
  while (pos < text.size() && text[pos] != ' ' && text[pos] != '\n') ++pos;
  return text.substr(begin, pos - begin);
}

std::optional<std::uint64_t> to_u64(std::string_view token) {
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || ptr != token.data() + token.size() || token.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  std::size_t open = text.find('(');
  std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcStat stat;
  stat.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields 3.. follow the last ')'; field N is token N-3.
  std::size_t pos = close + 1;
  std::optional<std::uint64_t> flags;
  std::optional<std::uint64_t> start_time;
  for (int field = 3; field <= 22; ++field) {
    std::string_view token = next_token(text, pos);
    if (token.empty()) return std::nullopt;
    if (field == 3) stat.state = token.front();
    if (field == 9) flags = to_u64(token);
    if (field == 22) start_time = to_u64(token);
  }
  if (!flags || !start_time) return std::nullopt;
  stat.flags = *flags;
  stat.start_time = *start_time;
  return stat;
}

std::string proc_path(pid_t pid, std::string_view file) {
  std::string path = "/proc/" + std::to_string(pid);
  if (!file.empty()) {
    path += '/';
    path += file;
  }
  return path;
}

std::optional<ProcStat> read_proc_stat(const tier::SysRoot& root, pid_t pid) {
  auto text = root.read(proc_path(pid, "stat"));
  if (!text) return std::nullopt;
  return parse_proc_stat(*text);
}

std::optional<pid_t> read_tgid(const tier::SysRoot& root, pid_t pid) {
  auto text = root.read(proc_path(pid, "status"));
  if (!text) return std::nullopt;
  constexpr std::string_view kKey = "\nTgid:";
  std::size_t at = text->find(kKey);
  if (at == std::string::npos) return std::nullopt;
  std::size_t begin = text->find_first_not_of(" \t", at + kKey.size());
  std::size_t end = text->find('\n', begin);
  if (begin == std::string::npos) return std::nullopt;
  return parse_pid(
      std::string_view(*text).substr(begin, end == std::string::npos ? end : end - begin));
}

std::optional<std::string> exe_basename(const tier::SysRoot& root, pid_t pid) {
  auto target = root.resolve_link(proc_path(pid, "exe"));
  if (!target || target->empty()) return std::nullopt;
  std::string path = *target;
  constexpr std::string_view kDeleted = " (deleted)";
  if (path.size() > kDeleted.size() &&
      path.compare(path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0) {
    path.resize(path.size() - kDeleted.size());
  }
  std::string name = std::filesystem::path(path).filename().string();
  if (name.empty()) return std::nullopt;
  return name;
}

std::optional<pid_t> parse_pid(std::string_view text) {
  pid_t pid = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || pid <= 0) {
    return std::nullopt;
  }
  return pid;
}

}  // namespace tierd::detail
