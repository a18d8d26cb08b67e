// tier-kernel-migrate: the kernel baseline for the PageMover benchmark. Moves
// every page of a process from one node to another with a single
// migrate_pages(2) call (what numactl's migratepages does) and times that call
// alone, so it compares with PageMover's own clock (tierctl migrate "seconds")
// without exec or /proc/uptime granularity in either figure. Prints:
//   {"seconds":S,"not_moved":N}        (not_moved: the syscall's return value)
//
//   tier-kernel-migrate --pid PID --from NODE --to NODE
#include <numa.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "tier-kernel-migrate: %s\nusage: tier-kernel-migrate --pid PID --from NODE --to "
               "NODE\n",
               why);
  std::exit(2);
}

int parse_int(const std::string& text, const char* what) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0' || v < 0) usage(what);
  return static_cast<int>(v);
}

double now_s() {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int pid = -1, from = -1, to = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--pid") {
      pid = parse_int(argv[i + 1], "bad --pid");
    } else if (flag == "--from") {
      from = parse_int(argv[i + 1], "bad --from");
    } else if (flag == "--to") {
      to = parse_int(argv[i + 1], "bad --to");
    } else {
      usage(("unknown argument " + flag).c_str());
    }
  }
  if (pid < 0 || from < 0 || to < 0 || argc != 7) usage("--pid, --from and --to are required");
  if (numa_available() < 0) usage("no NUMA support");
  struct bitmask* from_nodes = numa_allocate_nodemask();
  struct bitmask* to_nodes = numa_allocate_nodemask();
  numa_bitmask_setbit(from_nodes, static_cast<unsigned>(from));
  numa_bitmask_setbit(to_nodes, static_cast<unsigned>(to));
  const double start = now_s();
  int rc = numa_migrate_pages(pid, from_nodes, to_nodes);
  const double seconds = now_s() - start;
  if (rc < 0) {
    std::fprintf(stderr, "tier-kernel-migrate: migrate_pages: %s\n", std::strerror(errno));
    return 1;
  }
  std::printf("{\"seconds\":%.6f,\"not_moved\":%d}\n", seconds, rc);
  return 0;
}
