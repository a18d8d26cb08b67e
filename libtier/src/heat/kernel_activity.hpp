// KernelActivity: what the kernel itself does while heat is collected - the
// watched process's on-CPU time per NUMA node (sched_switch) and the kernel's
// own page migrations (mm_migrate_pages: NUMA balancing promotions,
// demotions, compaction), so a heat report shows where the task really ran
// and whether kernel tiering competed with tier. Both are eBPF programs
// (ebpf/sched_node.bpf.c, ebpf/kernel_migrations.bpf.c); when they cannot
// load (not root, no BPF) the report carries the reason instead.
#pragma once

#include <sys/types.h>

#include <memory>
#include <vector>

#include "tier/heat/collector.hpp"

namespace tier::heat {

class KernelActivityWatch {
 public:
  KernelActivityWatch(pid_t pid, const std::vector<int>& cpu_node);
  ~KernelActivityWatch();
  KernelActivityWatch(const KernelActivityWatch&) = delete;
  KernelActivityWatch& operator=(const KernelActivityWatch&) = delete;

  /// Reads the counters and detaches the programs.
  KernelActivity finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tier::heat
