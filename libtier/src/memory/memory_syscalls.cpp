// The live MemorySyscalls: libnuma's move_pages wrapper (a plain syscall).
#include "tier/memory/memory_syscalls.hpp"

#include <numaif.h>

#include <fstream>
#include <sstream>
#include <string>

namespace tier {

namespace {

class RealMemorySyscalls final : public MemorySyscalls {
 public:
  long move_pages(int pid, unsigned long count, void** pages, const int* nodes, int* status,
                  int flags) override {
    // errno is left exactly as the kernel set it.
    return ::move_pages(pid, count, pages, nodes, status, flags);
  }

  bool process_alive(int pid) override {
    // /proc/PID/stat: "pid (comm) state ppid pgrp session tty tpgid flags ...";
    // comm may hold spaces and parentheses, so parse after the last ')'.
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return false;
    auto close = line.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream fields(line.substr(close + 1));
    char state = 0;
    long ignored = 0;
    unsigned long flags = 0;
    fields >> state;
    for (int i = 0; i < 5; ++i) fields >> ignored;  // ppid pgrp session tty tpgid
    fields >> flags;
    constexpr unsigned long kPfExiting = 0x4;  // include/linux/sched.h
    return fields && state != 'Z' && state != 'X' && (flags & kPfExiting) == 0;
  }
};

}  // namespace

MemorySyscalls& real_memory_syscalls() {
  static RealMemorySyscalls instance;
  return instance;
}

}  // namespace tier
