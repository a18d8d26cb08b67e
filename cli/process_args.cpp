#include "process_args.hpp"

#include <cstdio>
#include <string>

#include "command.hpp"

namespace tierctl {

namespace {
constexpr unsigned long kPfKthread = 0x00200000;  // include/linux/sched.h
}

void require_user_process(const tier::SysRoot& root, int pid, std::string_view purpose) {
  const std::string proc = "/proc/" + std::to_string(pid);
  auto stat = pid > 0 ? root.read(proc + "/stat") : std::nullopt;
  if (!stat) throw UsageError("--pid " + std::to_string(pid) + ": no such process");
  // Fields after the last ')' (comm may hold spaces and parentheses):
  // state ppid pgrp session tty_nr tpgid flags ...
  auto paren = stat->rfind(')');
  unsigned long flags = 0;
  if (paren != std::string::npos) {
    char state = 0;
    int ppid = 0, pgrp = 0, session = 0, tty = 0, tpgid = 0;
    std::sscanf(stat->c_str() + paren + 1, " %c %d %d %d %d %d %lu", &state, &ppid, &pgrp, &session,
                &tty, &tpgid, &flags);
  }
  auto maps = root.read(proc + "/maps");
  if ((flags & kPfKthread) != 0 || (maps && maps->empty())) {
    throw UsageError("--pid " + std::to_string(pid) + " is a kernel thread: it has no user pages " +
                     std::string(purpose));
  }
}

}  // namespace tierctl
