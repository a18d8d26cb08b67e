// Reading one kernel file with the reason it could not be read.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernel_tiering/kernel_tiering_files.hpp"
#include "posix/text_scan.hpp"
#include "tier/posix/error.hpp"

namespace tier::kernel_tiering {

FileText read_file(const SysRoot& root, std::string_view kernel_path) {
  FileText out;
  // open()/read() rather than SysRoot::read: the errno tells "not there"
  // (ENOENT) from "not allowed" (EACCES on debugfs without root).
  int fd = ::open(root.path(kernel_path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error = errno;
    return out;
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.error = errno;
      ::close(fd);
      return out;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' ||
                           text.back() == '\r' || text.back() == '\0')) {
    text.pop_back();
  }
  out.text = std::move(text);
  return out;
}

std::string unreadable(std::string_view kernel_path, const FileText& file,
                       std::string_view if_missing) {
  if (file.error == ENOENT || file.error == ENOTDIR) return std::string(if_missing);
  std::string why = std::string(kernel_path) + ": " + posix::errno_text(file.error);
  if (file.error == EPERM && kernel_path.starts_with("/sys/kernel/debug/")) {
    // Root gets EPERM from debugfs under kernel lockdown (the build
    // machine's kernel logs "Lockdown: debugfs access is restricted").
    why += ": debugfs access is restricted (kernel lockdown, see kernel_lockdown(7)) or not root";
  } else if (file.error == EACCES || file.error == EPERM) {
    why += ", needs root";
  }
  return why;
}

namespace {

std::string cannot_parse(std::string_view kernel_path, std::string_view text) {
  std::string shown(text.substr(0, 40));
  if (text.size() > 40) shown += "...";
  return std::string(kernel_path) + ": cannot parse '" + shown + "'";
}

}  // namespace

Probed<std::uint64_t> read_u64(const SysRoot& root, std::string_view kernel_path,
                               std::string_view if_missing) {
  return to_u64(kernel_path, read_file(root, kernel_path), if_missing);
}

Probed<std::uint64_t> to_u64(std::string_view kernel_path, const FileText& file,
                             std::string_view if_missing) {
  if (!file.text) return Probed<std::uint64_t>::unknown(unreadable(kernel_path, file, if_missing));
  if (auto value = text::parse_u64(*file.text)) return Probed<std::uint64_t>::known(*value);
  return Probed<std::uint64_t>::unknown(cannot_parse(kernel_path, *file.text));
}

Probed<bool> read_bool(const SysRoot& root, std::string_view kernel_path,
                       std::string_view if_missing) {
  FileText file = read_file(root, kernel_path);
  if (!file.text) return Probed<bool>::unknown(unreadable(kernel_path, file, if_missing));
  if (auto value = parse_kernel_bool(*file.text)) return Probed<bool>::known(*value);
  return Probed<bool>::unknown(cannot_parse(kernel_path, *file.text));
}

Probed<std::string> read_word(const SysRoot& root, std::string_view kernel_path,
                              std::string_view if_missing) {
  FileText file = read_file(root, kernel_path);
  if (!file.text) return Probed<std::string>::unknown(unreadable(kernel_path, file, if_missing));
  const std::string& text = *file.text;
  bool word = !text.empty() && text.size() <= 64 &&
              text.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
  if (word) return Probed<std::string>::known(text);
  return Probed<std::string>::unknown(cannot_parse(kernel_path, text));
}

std::optional<std::int64_t> read_optional_int(const SysRoot& root, std::string_view kernel_path) {
  FileText file = read_file(root, kernel_path);
  return file.text ? parse_kernel_int(*file.text) : std::nullopt;
}

}  // namespace tier::kernel_tiering

namespace tier {

std::optional<std::int64_t> parse_kernel_int(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  auto magnitude = text::parse_u64(text);
  if (!magnitude || *magnitude > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  auto value = static_cast<std::int64_t>(*magnitude);
  return negative ? -value : value;
}

std::optional<bool> parse_kernel_bool(std::string_view text) {
  // demotion_enabled prints true/false; module bool params print Y/N.
  if (text == "true" || text == "Y" || text == "y" || text == "1") return true;
  if (text == "false" || text == "N" || text == "n" || text == "0") return false;
  return std::nullopt;
}

}  // namespace tier
