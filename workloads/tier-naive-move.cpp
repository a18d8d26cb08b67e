// tier-naive-move: the naive baseline for the PageMover benchmark. Moves the
// 4 KiB pages of another process's address range to a node with one
// move_pages(2) call per page, and prints one line of JSON:
//   {"pages":N,"moved":N,"failed":N,"first_error":"..","seconds":S,"mbps":M,"bytes_moved":B}
// mbps is bytes_moved / seconds / 10^6 (MB = 10^6 bytes).
//
//   tier-naive-move --pid PID --to NODE --range START-END   (hex or decimal, END exclusive)
#include <numaif.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr std::uint64_t kPage = 4096;

[[noreturn]] void usage(const char* why) {
  std::fprintf(
      stderr, "tier-naive-move: %s\nusage: tier-naive-move --pid PID --to NODE --range START-END\n",
      why);
  std::exit(2);
}

bool parse_u64(const std::string& text, std::uint64_t& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') return false;
  out = v;
  return true;
}

double now_s() {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t pid = 0, to = 0, start = 0, end = 0;
  bool have_pid = false, have_to = false, have_range = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage(("missing value for " + a).c_str());
    std::string v = argv[++i];
    if (a == "--pid") {
      have_pid = parse_u64(v, pid) && pid > 0;
    } else if (a == "--to") {
      have_to = parse_u64(v, to) && to < 1024;
    } else if (a == "--range") {
      auto dash = v.find('-');
      have_range = dash != std::string::npos && parse_u64(v.substr(0, dash), start) &&
                   parse_u64(v.substr(dash + 1), end) && start < end;
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }
  if (!have_pid || !have_to || !have_range) usage("--pid, --to and --range are required");
  start = start / kPage * kPage;
  std::uint64_t pages = (end - start + kPage - 1) / kPage;
  std::uint64_t moved = 0, failed = 0;
  int first_error = 0;
  int node = static_cast<int>(to);
  double t0 = now_s();
  for (std::uint64_t i = 0; i < pages; ++i) {
    void* addr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(start + i * kPage));
    int status = 0;
    long r = move_pages(static_cast<int>(pid), 1, &addr, &node, &status, MPOL_MF_MOVE);
    if (r < 0) {
      if (first_error == 0) first_error = errno;
      ++failed;
      if (errno == ESRCH) break;  // the process is gone: stop, don't spin
    } else if (status == node) {
      ++moved;
    } else {
      if (first_error == 0) first_error = -status;
      ++failed;
    }
  }
  double secs = now_s() - t0;
  std::uint64_t bytes = moved * kPage;
  std::printf("{\"pages\":%" PRIu64 ",\"moved\":%" PRIu64 ",\"failed\":%" PRIu64
              ",\"first_error\":\"%s\",\"seconds\":%.6f,\"mbps\":%.3f,\"bytes_moved\":%" PRIu64
              "}\n",
              pages, moved, failed, first_error != 0 ? std::strerror(first_error) : "", secs,
              secs > 0 ? static_cast<double>(bytes) / secs / 1e6 : 0.0, bytes);
  return failed == 0 ? 0 : 1;
}
