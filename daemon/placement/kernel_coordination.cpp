#include "kernel_coordination.hpp"

#include <climits>

#include "tier/kernel_tiering/kernel_tiering.hpp"
#include "tier/posix/text.hpp"

namespace tierd {

namespace {

std::string balancing_text(const KernelTieringNow& now) {
  if (!now.numa_balancing) return "this kernel has no NUMA balancing";
  return "kernel.numa_balancing is " + std::to_string(*now.numa_balancing);
}

std::string demotion_text(const KernelTieringNow& now) {
  if (!now.demotion_enabled) return "this kernel has no demotion";
  return std::string("demotion_enabled is ") + (*now.demotion_enabled ? "true" : "false");
}

}  // namespace

KernelTieringNow read_kernel_tiering_now(const tier::SysRoot& root) {
  KernelTieringNow now;
  if (auto mode = root.read_int("/proc/sys/kernel/numa_balancing");
      mode && *mode >= 0 && *mode <= INT_MAX) {
    now.numa_balancing = static_cast<unsigned>(*mode);
  }
  if (auto text = root.read("/sys/kernel/mm/numa/demotion_enabled")) {
    now.demotion_enabled = tier::parse_kernel_bool(tier::text::trim(*text));
  }
  return now;
}

bool kernel_promotes_into_room(const KernelTieringNow& now) {
  return now.numa_balancing.value_or(0) != 0;
}

std::string kernel_tiering_why(KernelTiering mode, const KernelTieringNow& now) {
  switch (mode) {
    case KernelTiering::own:
      return "own: tierd decides every move; it set the kernel's NUMA balancing and demotion "
             "for that (restored when it stops; " +
             balancing_text(now) + ", " + demotion_text(now) + ")";
    case KernelTiering::observe:
      return "observe: tierd samples, plans and reports, and moves nothing";
    case KernelTiering::coexist:
      break;
  }
  // coexist: the default, because it changes nothing in the kernel tierd was
  // not told to change, so it is safe on a machine tierd does not know.
  std::string why = "coexist: tierd leaves the kernel's settings as they are (" +
                    balancing_text(now) + ", " + demotion_text(now) + "); ";
  why += kernel_promotes_into_room(now)
             ? "the kernel promotes into fast memory with room, tierd promotes where the fast "
               "node is too full for the kernel"
             : "the kernel promotes nothing, so tierd promotes into room too";
  why += now.demotion_enabled.value_or(false)
             ? "; the kernel demotes under reclaim, tierd demotes cold data ahead of it"
             : "; the kernel demotes nothing, tierd demotes cold data";
  return why;
}

}  // namespace tierd
