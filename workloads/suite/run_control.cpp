#include "run_control.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace tier_workloads {
namespace {

timespec to_timespec(double seconds) {
  seconds = std::max(seconds, 0.0);
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(seconds);
  ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
  return ts;
}

}  // namespace

double monotonic_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

RunControl::RunControl() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

bool RunControl::ready(const SuiteOptions& o, const std::string& ready_json) {
  std::printf("%s\n", ready_json.c_str());
  std::fflush(stdout);
  if (o.ready_file.empty()) return true;
  const int fd = open(o.ready_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "--ready-file %s: %s\n", o.ready_file.c_str(), std::strerror(errno));
    return false;
  }
  close(fd);
  return true;
}

bool RunControl::wait_start(const SuiteOptions& o) {
  if (o.start_file.empty()) return true;
  const timespec poll = to_timespec(0.01);
  while (access(o.start_file.c_str(), F_OK) != 0) {
    const int sig = sigtimedwait(&signals_, nullptr, &poll);
    if (sig == SIGTERM || sig == SIGINT) return false;
  }
  return true;
}

void RunControl::stop() {
  kill(getpid(), SIGTERM);
}

double RunControl::run(const SuiteOptions& o, const std::function<void(double)>& tick) {
  const double start = monotonic_s();
  const double end = o.duration_s > 0 ? start + o.duration_s : INFINITY;
  const double period = o.report_ms / 1000.0;
  double next = start + period;
  for (;;) {
    const double t = monotonic_s();
    if (t >= end) break;
    if (t >= next) {
      tick(t - start);
      next += period * std::max(1.0, std::floor((t - next) / period) + 1.0);
      continue;
    }
    const timespec wait = to_timespec(std::min(end, next) - t);
    const int sig = sigtimedwait(&signals_, nullptr, &wait);
    if (sig == SIGTERM || sig == SIGINT) break;
  }
  stopping_.store(true);
  return monotonic_s() - start;
}

}  // namespace tier_workloads
