// bpf_fault_availability() and make_bpf_fault_source(): whether the eBPF
// page-fault source can run here, decided by really loading and attaching it
// (then freeing everything at once), and the factory the selection uses.
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tier/heat/bpf_sources.hpp"
#include "tier/heat/sources.hpp"

namespace tier::heat {

namespace {

// CAP_BPF (5.8+) or CAP_SYS_ADMIN in the effective set, without libcap.
bool may_use_bpf() {
  if (geteuid() == 0) return true;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  auto has = [&](unsigned cap) { return (data[cap / 32].effective & (1u << (cap % 32))) != 0; };
  constexpr unsigned kCapBpf = 39;  // CAP_BPF; older UAPI headers lack the name
  return has(kCapBpf) || has(CAP_SYS_ADMIN);
}

}  // namespace

SourceAvailability bpf_fault_availability(const SysRoot& root) {
  if (!root.is_live()) return {false, "needs the live kernel (reading a gathered tree)"};
  if (!may_use_bpf()) return {false, "BPF not permitted: run as root (or with CAP_BPF)"};
  SourceOptions options;
  options.ring_bytes = 0;  // smallest ring: the probe only loads and attaches
  BpfFaultSource probe(options);
  try {
    // Our own pid: the probe must track something, and it is surely running.
    probe.start({getpid()});
  } catch (const SourceError& error) {
    return {false, error.what()};
  }
  SourceAvailability result{true, probe.attach_point()};
  probe.stop();
  if (root.read_int("/proc/sys/kernel/numa_balancing").value_or(0) == 0) {
    result.reason += "; only first-touch faults: NUMA balancing is off, no hint faults";
  }
  return result;
}

std::unique_ptr<HeatSource> make_bpf_fault_source(const SourceOptions& options) {
  return std::make_unique<BpfFaultSource>(options);
}

}  // namespace tier::heat
