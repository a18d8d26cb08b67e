// MemorySyscalls: the seam between tier's memory mechanics and the kernel's
// page-placement syscalls.
//
// Contract: move_pages() has the kernel's signature and semantics
// (move_pages(2)): with nodes == nullptr it only reports the node of each page
// in status[]; with nodes it migrates. It returns the syscall's result: 0, or a
// positive number of pages the kernel could not move, or -1 with errno set
// (the real implementation preserves errno from libnuma; fakes must set it).
// Residency and PageMover take a MemorySyscalls&, so unit tests inject a fake
// that scripts statuses and errors, and live code uses real_memory_syscalls().
#pragma once

namespace tier {

class MemorySyscalls {
 public:
  virtual ~MemorySyscalls() = default;

  virtual long move_pages(int pid, unsigned long count, void** pages, const int* nodes, int* status,
                          int flags) = 0;
  /// False once the process is gone or exiting (zombie, PF_EXITING): an
  /// exiting process has no memory left and move_pages then fails with EINVAL
  /// or EFAULT rather than ESRCH, so callers ask before calling it an error.
  virtual bool process_alive(int pid) = 0;
};

/// The live kernel through libnuma's numaif.h. Stateless, shared.
MemorySyscalls& real_memory_syscalls();

}  // namespace tier
