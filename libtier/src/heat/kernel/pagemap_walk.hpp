// Internal: walking a process's pagemap entries mapping by mapping, shared by
// the soft-dirty and idle-page sources.
//
// Contract: read_mappings() lists /proc/PID/maps through the SysRoot with the
// parser residency already uses (tier/memory/residency.hpp), minus the kernel's
// special mappings ([vsyscall], [vdso], [vvar]) and whatever `keep` rejects.
// A process that has exited (no /proc/PID, or a zombie whose maps are empty)
// is reported as gone, never as an error. walk_pagemap() reads
// /proc/PID/pagemap in batched preads (kBatchPages entries each) and calls
// visit(address, entry) for every page of the mappings in address order;
// entries past a short read (the process exiting) are not visited.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tier/memory/residency.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier::heat::kernel {

inline constexpr std::uint64_t kBatchPages = 8192;  // 64 KiB of entries per pread

struct MappingsRead {
  bool gone = false;  // the process no longer exists (or is a zombie)
  std::string error;  // set when the maps could not be read for another reason
  std::vector<Mapping> mappings;
};

MappingsRead read_mappings(const SysRoot& root, pid_t pid,
                           const std::function<bool(const Mapping&)>& keep);

/// Mappings the process can write to ("rw-p", "rw-s"): what soft-dirty watches.
bool writable_mapping(const Mapping& mapping);
/// Mappings with any access ("---p" guard pages hold no pages).
bool accessible_mapping(const Mapping& mapping);

/// Returns 0, or the errno of opening or reading the pagemap.
int walk_pagemap(const SysRoot& root, pid_t pid, const std::vector<Mapping>& mappings,
                 const std::function<void(std::uint64_t address, std::uint64_t entry)>& visit);

}  // namespace tier::heat::kernel
