// tierd's logging: one line per message on stderr, leveled.
//
// Under systemd, stderr is a stream connected to journald; journald reads a
// leading "<N>" (N = syslog priority) as the entry's priority and strips it,
// so `journalctl -p warning -u tierd` works without linking sd-journal. Any
// other stderr (a terminal, a test's capture file) gets "tierd: LEVEL: ..."
// instead, which people and tests can read. systemd tells a service its
// stderr is the journal with JOURNAL_STREAM=DEV:INODE of that stream; the
// variable alone is not enough (it is inherited by children whose stderr was
// redirected), so the device and inode are compared with fd 2's.
//
// Usage: `tierd::log::info() << "serving on " << path;` writes one message
// when the temporary dies. Messages below the current level cost one branch.
// Multi-line messages get the prefix on every line (journald splits lines).
#pragma once

#include <sys/types.h>

#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tierd::log {

/// Values are the syslog priorities journald expects in the "<N>" prefix.
enum class Level { error = 3, warn = 4, info = 6, debug = 7 };

/// "error", "warn", "info", "debug" (the config's daemon.log_level words).
std::optional<Level> parse_level(std::string_view name);
std::string_view level_name(Level level);

void set_level(Level level);
Level level();
bool enabled(Level level);

/// True when JOURNAL_STREAM (`env`, "DEV:INODE") names the stream with device
/// `dev` and inode `ino`. Pure, so the decision is testable without journald.
bool journal_stream_matches(const char* env, dev_t dev, ino_t ino);
/// Whether stderr is journald's stream (JOURNAL_STREAM vs fstat(2)).
bool stderr_is_journal();

/// The exact text written for one message, newline-terminated.
std::string format(Level level, std::string_view message, bool journal);

/// Writes one message to stderr if `level` is enabled, in one write(2) call
/// (repeated only on a short write) so concurrent writers rarely interleave.
void write(Level level, std::string_view message);

/// A message built with << and written when the object is destroyed.
class Line {
 public:
  explicit Line(Level level) : level_(level), on_(enabled(level)) {}
  ~Line() {
    if (on_) write(level_, text_.str());
  }
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

  template <typename T>
  Line& operator<<(const T& value) {
    if (on_) text_ << value;
    return *this;
  }

 private:
  Level level_;
  bool on_;
  std::ostringstream text_;
};

inline Line error() {
  return Line(Level::error);
}
inline Line warn() {
  return Line(Level::warn);
}
inline Line info() {
  return Line(Level::info);
}
inline Line debug() {
  return Line(Level::debug);
}

/// One warning line per entry, each after `prefix` ("kernel: ", "topology: ").
inline void warn_lines(const std::vector<std::string>& lines, const char* prefix) {
  for (const std::string& line : lines) warn() << prefix << line;
}

}  // namespace tierd::log
