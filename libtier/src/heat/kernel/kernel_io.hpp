// Internal to the kernel page-tracking sources (DAMON, soft-dirty, idle page):
// the few I/O primitives they share.
//
// Contract: every path is a kernel path ("/proc/42/clear_refs") mapped under
// the SysRoot, so tests run the sources against fixture trees. Writes never
// create files: the kernel's sysfs and procfs files already exist, and a
// write to a path the kernel does not have must fail in a fixture too (a
// typo in a DAMON path is then caught by the tests, not on a real machine).
// Functions report errno values instead of throwing; the sources decide
// whether an error means "process gone", "try again" or "give up".
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "tier/posix/fd.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::heat::kernel {

/// Opens root.path(kernel_path) with `flags` (O_CLOEXEC added); errno on failure.
posix::Fd open_kernel_file(const SysRoot& root, std::string_view kernel_path, int flags,
                           int& error);

/// Writes `value` to an existing file (O_WRONLY | O_TRUNC, never O_CREAT) in
/// one write(2), as `echo value > file` does. Returns 0 or the errno.
int write_kernel_file(const SysRoot& root, std::string_view kernel_path, std::string_view value);

/// Reads exactly `bytes` at `offset` unless the file ends first (a pagemap of
/// an exiting process, a fixture shorter than the range). Returns the bytes
/// read, or -1 with errno set.
ssize_t pread_full(int fd, void* buffer, std::size_t bytes, std::uint64_t offset);

/// True for the errors a vanished process gives (/proc/PID gone, task exiting).
bool process_gone(int error);

/// "/proc/<pid>" + leaf ("/maps", "/pagemap", ...).
std::string proc_path(pid_t pid, std::string_view leaf);

/// CLOCK_MONOTONIC now, in nanoseconds (AccessSample::time_ns).
std::uint64_t monotonic_ns();

/// The base page size pagemap and the idle bitmap count in.
std::uint64_t page_size();

}  // namespace tier::heat::kernel
