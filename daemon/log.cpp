#include "log.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>

namespace tierd::log {

namespace {

std::atomic<Level> g_level{Level::info};

// Decided once: JOURNAL_STREAM and fd 2 do not change while tierd runs.
bool journal() {
  static const bool value = stderr_is_journal();
  return value;
}

template <typename T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<Level> parse_level(std::string_view name) {
  for (Level level : {Level::error, Level::warn, Level::info, Level::debug}) {
    if (level_name(level) == name) return level;
  }
  return std::nullopt;
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::error:
      return "error";
    case Level::warn:
      return "warn";
    case Level::info:
      return "info";
    case Level::debug:
      return "debug";
  }
  return "info";
}

void set_level(Level level) {
  g_level.store(level, std::memory_order_relaxed);
}

Level level() {
  return g_level.load(std::memory_order_relaxed);
}

bool enabled(Level level) {
  return static_cast<int>(level) <= static_cast<int>(log::level());
}

bool journal_stream_matches(const char* env, dev_t dev, ino_t ino) {
  if (env == nullptr) return false;
  std::string_view text(env);
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  unsigned long long env_dev = 0;
  unsigned long long env_ino = 0;
  if (!parse_number(text.substr(0, colon), env_dev) ||
      !parse_number(text.substr(colon + 1), env_ino)) {
    return false;
  }
  return env_dev == static_cast<unsigned long long>(dev) &&
         env_ino == static_cast<unsigned long long>(ino);
}

bool stderr_is_journal() {
  const char* env = std::getenv("JOURNAL_STREAM");
  if (env == nullptr) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;
  return journal_stream_matches(env, st.st_dev, st.st_ino);
}

std::string format(Level level, std::string_view message, bool journal_stream) {
  // journald already tags every entry with the unit and pid, and applies the
  // priority from "<N>": repeating "tierd: info:" there would only be noise.
  std::string prefix = journal_stream ? "<" + std::to_string(static_cast<int>(level)) + ">"
                                      : "tierd: " + std::string(level_name(level)) + ": ";
  std::string out;
  out.reserve(message.size() + prefix.size() + 1);
  std::size_t start = 0;
  do {
    std::size_t end = message.find('\n', start);
    if (end == std::string_view::npos) end = message.size();
    out += prefix;
    out += message.substr(start, end - start);
    out += '\n';
    start = end + 1;
  } while (start < message.size());
  return out;
}

void write(Level level, std::string_view message) {
  if (!enabled(level)) return;
  std::string text = format(level, message, journal());
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere left to report a failing stderr
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace tierd::log
