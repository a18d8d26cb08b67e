// Ctrl-C during a long tierctl command (`heat`, `migrate`): the work stops
// at its next check and the command still reports what it did, instead of
// dying with the report unprinted.
#pragma once

#include <atomic>

namespace tierctl {

/// Clears the flag, then makes SIGINT and SIGTERM set it (the default
/// action no longer ends the process). The flag outlives every command:
/// hand it to the work as its cancel pointer.
std::atomic<bool>& cancel_on_interrupt();

}  // namespace tierctl
