#include "tier/posix/sysroot.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace tier {

namespace fs = std::filesystem;

SysRoot::SysRoot(fs::path root) : root_(std::move(root)) {
  std::error_code ec;
  live_ = root_.empty() || fs::equivalent(root_, "/", ec);
  if (root_.empty()) root_ = "/";
}

fs::path SysRoot::path(std::string_view kernel_path) const {
  if (live_) return fs::path(kernel_path);
  while (!kernel_path.empty() && kernel_path.front() == '/') kernel_path.remove_prefix(1);
  return root_ / kernel_path;
}

bool SysRoot::exists(std::string_view kernel_path) const {
  std::error_code ec;
  return fs::exists(path(kernel_path), ec);
}

bool SysRoot::process_exists(int pid) const {
  if (pid <= 0) return false;
  if (live_) return ::kill(pid, 0) == 0 || errno == EPERM;
  return exists("/proc/" + std::to_string(pid));
}

// POSIX open/read, not an ifstream: tierd reads a /proc file per process per
// epoch on a server with thousands of them, and the stream's buffers and
// locale machinery cost more than the kernel's own work on these small files
// (issue 20's profile: 45 % of tierd's CPU under SysRoot::read, most of it in
// ifstream open and underflow).
std::optional<std::string> SysRoot::read(std::string_view kernel_path) const {
  const std::string file = path(kernel_path).string();
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (got == 0) break;
    text.append(chunk, static_cast<std::size_t>(got));
  }
  ::close(fd);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' ||
                           text.back() == '\r' || text.back() == '\0')) {
    text.pop_back();
  }
  return text;
}

std::optional<std::vector<std::uint8_t>> SysRoot::read_bytes(std::string_view kernel_path) const {
  std::ifstream in(path(kernel_path), std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                  std::istreambuf_iterator<char>()};
  if (in.bad()) return std::nullopt;
  return bytes;
}

std::optional<std::int64_t> SysRoot::read_int(std::string_view kernel_path) const {
  auto text = read(kernel_path);
  if (!text) return std::nullopt;
  const char* begin = text->data();
  const char* end = begin + text->size();
  while (begin != end && (*begin == ' ' || *begin == '\t')) ++begin;
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  return value;
}

std::vector<std::string> SysRoot::list(std::string_view kernel_dir) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(path(kernel_dir), ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> SysRoot::resolve_link(std::string_view kernel_path) const {
  std::error_code ec;
  fs::path link = path(kernel_path);
  if (!fs::is_symlink(link, ec)) return std::nullopt;
  fs::path target = fs::read_symlink(link, ec);
  if (ec) return std::nullopt;
  // sysfs links are relative ("../../devices/..."); resolve them lexically
  // against the kernel path so the answer stays a kernel path under any root.
  fs::path resolved = target.is_absolute()
                          ? target
                          : (fs::path(kernel_path).parent_path() / target).lexically_normal();
  return resolved.string();
}

std::vector<unsigned> numbered_entries(const SysRoot& root, std::string_view dir,
                                       std::string_view prefix) {
  std::vector<unsigned> ids;
  for (const auto& name : root.list(dir)) {
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    unsigned id = 0;
    const char* begin = name.data() + prefix.size();
    const char* end = name.data() + name.size();
    auto [ptr, ec] = std::from_chars(begin, end, id);
    if (ec == std::errc() && ptr == end) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace tier
