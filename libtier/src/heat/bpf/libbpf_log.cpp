#include "libbpf_log.hpp"

#include <bpf/libbpf.h>

#include <array>
#include <cstdarg>
#include <cstdio>

namespace tier::heat::bpf {

namespace {

std::string g_last_warning;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
int capture(enum libbpf_print_level level, const char* format, va_list args) {
  if (level > LIBBPF_WARN) return 0;
  std::array<char, 512> line{};
  std::vsnprintf(line.data(), line.size(), format, args);
  std::string text = line.data();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.starts_with("libbpf: ")) text.erase(0, 8);
  if (!text.empty()) g_last_warning = text;
  return 0;
}
#pragma GCC diagnostic pop

}  // namespace

LibbpfLog::LibbpfLog() : previous_(libbpf_set_print(capture)) {
  g_last_warning.clear();
}

LibbpfLog::~LibbpfLog() {
  libbpf_set_print(previous_);
}

std::string LibbpfLog::last_warning() const {
  return g_last_warning;
}

void LibbpfLog::clear() {
  g_last_warning.clear();
}

}  // namespace tier::heat::bpf
