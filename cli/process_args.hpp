// Checks of a --pid argument shared by the subcommands that act on a process
// (migrate, heat): the process exists and is a user process.
#pragma once

#include <string_view>

#include "tier/posix/sysroot.hpp"

namespace tierctl {

/// Throws UsageError when `pid` is not a live process ("no such process") or
/// is a kernel thread ("... has no user pages <purpose>", e.g. "to migrate").
void require_user_process(const tier::SysRoot& root, int pid, std::string_view purpose);

}  // namespace tierctl
