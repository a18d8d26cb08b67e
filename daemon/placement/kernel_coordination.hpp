// What the kernel's own tiering does right now, and what that leaves to
// tierd under each kernel_tiering mode (docs/kernel-tiering.md). tierd reads
// the two knobs each policy tick: under "coexist" it changes neither, and an
// operator (or another tool) may change them at any time.
#pragma once

#include <optional>
#include <string>

#include "config.hpp"
#include "tier/posix/sysroot.hpp"

namespace tierd {

struct KernelTieringNow {
  std::optional<unsigned> numa_balancing;  // /proc/sys/kernel/numa_balancing; nullopt: no knob
  std::optional<bool> demotion_enabled;    // /sys/kernel/mm/numa/demotion_enabled
};

KernelTieringNow read_kernel_tiering_now(const tier::SysRoot& root);

/// Whether the kernel moves pages into a fast node that has room: NUMA
/// balancing on in any mode (mode 1 moves a page to the node of the CPU
/// that touches it, mode 2 promotes hot pages); both stop at the node's
/// free-space level, where tierd's own promotions take over.
bool kernel_promotes_into_room(const KernelTieringNow& now);

/// One sentence for `status` (placement.kernel_tiering_why): which moves the
/// kernel makes and which tierd makes under `mode`, from the knobs now.
std::string kernel_tiering_why(KernelTiering mode, const KernelTieringNow& now);

}  // namespace tierd
