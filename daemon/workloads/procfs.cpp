#include "workloads/procfs.hpp"

#include <charconv>
#include <filesystem>

#include "workloads/cgroup_fs.hpp"

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

std::optional<int> to_int(std::string_view token) {
  int value = 0;
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
  std::optional<int> nice;
  for (int field = 3; field <= 22; ++field) {
    std::string_view token = next_token(text, pos);
    if (token.empty()) return std::nullopt;
    if (field == 3) stat.state = token.front();
    if (field == 9) flags = to_u64(token);
    if (field == 19) nice = to_int(token);
    if (field == 22) start_time = to_u64(token);
  }
  if (!flags || !start_time || !nice) return std::nullopt;
  stat.flags = *flags;
  stat.nice = *nice;
  stat.start_time = *start_time;
  // Field 41, the scheduling policy, since Linux 2.5.19; 0 when cut short.
  for (int field = 23; field <= 41; ++field) {
    std::string_view token = next_token(text, pos);
    if (token.empty()) break;
    if (field == 41) stat.policy = static_cast<unsigned>(to_u64(token).value_or(0));
  }
  return stat;
}

std::optional<std::uint64_t> read_anon_bytes(const tier::SysRoot& root, pid_t pid,
                                             std::uint64_t page_bytes) {
  auto text = root.read(proc_path(pid, "statm"));
  if (!text) return std::nullopt;
  std::size_t pos = 0;
  next_token(*text, pos);  // size
  auto resident = to_u64(next_token(*text, pos));
  auto shared = to_u64(next_token(*text, pos));
  if (!resident || !shared) return std::nullopt;
  return (*resident > *shared ? *resident - *shared : 0) * page_bytes;
}

std::optional<std::string> read_cgroup_v2(const tier::SysRoot& root, pid_t pid) {
  auto text = root.read(proc_path(pid, "cgroup"));
  if (!text) return std::nullopt;
  // One line per hierarchy, "ID:CONTROLLERS:PATH"; v2's is "0::PATH".
  std::string_view rest = *text;
  while (!rest.empty()) {
    std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (line.substr(0, 3) != "0::") continue;
    std::string_view path = line.substr(3);
    if (path.empty() || path.front() != '/') return std::nullopt;
    // " (deleted)": the cgroup was removed under a dying process.
    constexpr std::string_view kDeleted = " (deleted)";
    if (path.size() > kDeleted.size() && path.substr(path.size() - kDeleted.size()) == kDeleted) {
      return std::nullopt;
    }
    std::string full(kCgroupMount);
    if (path != "/") full += path;
    return full;
  }
  return std::nullopt;
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
