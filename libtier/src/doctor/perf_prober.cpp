// The live PerfProber: one perf_event_open of hardware CPU cycles, the event
// every PMU-based sampler (PEBS, IBS) builds on. Opened disabled and closed at
// once; it never counts anything.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "checks.hpp"

namespace tier::doctor {

namespace {

class LivePerfProber final : public PerfProber {
 public:
  ProbeOutcome open_cpu_cycles() override {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.disabled = 1;
    attr.exclude_kernel = 1;  // also allowed at perf_event_paranoid 2
    attr.exclude_hv = 1;
    ProbeOutcome out;
    out.step = "perf_event_open(PERF_COUNT_HW_CPU_CYCLES)";
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0UL);
    if (fd < 0) {
      out.error = errno;
      return out;
    }
    close(static_cast<int>(fd));
    return out;
  }
};

}  // namespace

std::unique_ptr<PerfProber> make_live_perf_prober() {
  return std::make_unique<LivePerfProber>();
}

}  // namespace tier::doctor
