#include "truth.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace hotset {

bool Truth::add_phase(const Layout& layout, unsigned phase, double start_s) {
  char head[64];
  std::snprintf(head, sizeof head, "{\"start_s\":%.3f,\"hot\":[", start_s);
  std::string entry = head;
  bool first = true;
  for (const auto& [start, end] : layout.ranges(phase)) {
    entry += (first ? "[" : ",[") + std::to_string(start) + "," + std::to_string(end) + "]";
    first = false;
  }
  entry += "]}";
  phases_ += (phases_.empty() ? "" : ",") + entry;
  if (path_.empty()) return true;

  std::string tmp = path_ + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  bool ok = f != nullptr;
  if (ok) {
    ok = std::fprintf(f, "{\"page_size\":%zu,\"base\":%" PRIuPTR ",\"size\":%zu,\"phases\":[%s]}\n",
                      kPage, base_, size_, phases_.c_str()) > 0;
    ok = std::fclose(f) == 0 && ok;
  }
  if (!ok || std::rename(tmp.c_str(), path_.c_str()) != 0) {
    std::fprintf(stderr, "hotset: writing the truth file %s: %s\n", path_.c_str(),
                 std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace hotset
