// BpfRunTimeTracker: loads ebpf/sched_node.bpf.c, fills its cpu -> node map
// and tracked tgids, and reads back {tgid, node} -> ns. See bpf_sources.hpp.
#include <bpf/bpf.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "hook_chain.hpp"
#include "hook_labels.hpp"
#include "sched_node.skel.h"
#include "tier/heat/bpf_sources.hpp"
#include "tier_events.h"
#include "tracked_processes.hpp"

namespace tier::heat {

namespace {

const std::vector<bpf::Hook>& run_time_chain() {
  static const std::vector<bpf::Hook> chain{
      {"tp_btf/sched_switch", "switch_tp_btf", "", ""},
      {"raw_tp/sched_switch", "switch_raw_tp", "", ""},
  };
  return chain;
}

void fill_cpu_node(const bpf_map* map, const std::vector<int>& cpu_node) {
  const __u32 cpus = bpf_map__max_entries(map);
  for (__u32 cpu = 0; cpu < cpus; ++cpu) {
    __s32 node = cpu < cpu_node.size() ? cpu_node[cpu] : -1;
    if (bpf_map_update_elem(bpf_map__fd(map), &cpu, &node, BPF_ANY) != 0) {
      throw SourceError("run time: cannot write the cpu -> node map: " +
                        std::string(std::strerror(errno)));
    }
  }
}

// Seeds the program's tid -> run time map with each existing thread's count
// from schedstat (the same se.sum_exec_runtime the program reads), so a
// thread's first slice is credited even when its first switch-in is missed
// or happened before the program was attached. Threads that exit meanwhile
// are skipped: nothing of theirs is left to credit.
void seed_thread_runtime(const bpf_map* map, const SysRoot& root, const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    for (const std::string& tid_name : root.list(tasks)) {
      const auto stat = root.read(tasks + "/" + tid_name + "/schedstat");
      if (!stat) continue;
      __u64 runtime = std::strtoull(stat->c_str(), nullptr, 10);
      __u32 tid = static_cast<__u32>(std::strtoul(tid_name.c_str(), nullptr, 10));
      if (tid == 0) continue;
      if (bpf_map_update_elem(bpf_map__fd(map), &tid, &runtime, BPF_NOEXIST) != 0 &&
          errno != EEXIST) {
        throw SourceError("run time: cannot seed thread " + tid_name + ": " +
                          std::string(std::strerror(errno)));
      }
    }
  }
}

}  // namespace

struct BpfRunTimeTracker::Impl {
  bpf::Attached<sched_node_bpf> program;
};

BpfRunTimeTracker::BpfRunTimeTracker() : impl_(std::make_unique<Impl>()) {}
BpfRunTimeTracker::~BpfRunTimeTracker() {
  stop();
}
BpfRunTimeTracker::BpfRunTimeTracker(BpfRunTimeTracker&&) noexcept = default;
BpfRunTimeTracker& BpfRunTimeTracker::operator=(BpfRunTimeTracker&&) noexcept = default;

void BpfRunTimeTracker::start(const std::vector<pid_t>& pids, const std::vector<int>& cpu_node,
                              const std::vector<std::string>& hooks) {
  if (impl_->program) throw SourceError("run time tracker: already started");
  SysRoot live;
  bpf::require_running(live, pids);
  std::vector<std::string> skipped;
  auto program = bpf::attach_first(
      "sched_switch run time", bpf::select_hooks(run_time_chain(), hooks),
      bpf::SkeletonApi<sched_node_bpf>{sched_node_bpf__open, sched_node_bpf__load,
                                       sched_node_bpf__destroy},
      [](sched_node_bpf*) {}, skipped);
  // Nodes first: a tracked slice must never be credited to an unfilled node 0.
  fill_cpu_node(program.skel()->maps.cpu_node, cpu_node);
  // Counts before tgids: the program ignores a thread until its tgid is
  // tracked, and then finds the seeded count waiting.
  seed_thread_runtime(program.skel()->maps.thread_runtime, live, pids);
  bpf::track_tgids(program.skel()->maps.tracked_tgids, pids);
  impl_->program = std::move(program);
}

std::map<pid_t, std::map<int, std::uint64_t>> BpfRunTimeTracker::read() const {
  std::map<pid_t, std::map<int, std::uint64_t>> result;
  if (!impl_ || !impl_->program) return result;
  int fd = bpf_map__fd(impl_->program.skel()->maps.run_time_ns);
  tier_node_key key{};
  tier_node_key next{};
  const void* previous = nullptr;
  // Hash-map walk; entries are only added while running, never deleted, so
  // the walk cannot restart from the beginning.
  while (bpf_map_get_next_key(fd, previous, &next) == 0) {
    key = next;
    previous = &key;
    __u64 ns = 0;
    if (bpf_map_lookup_elem(fd, &key, &ns) == 0) {
      result[static_cast<pid_t>(key.tgid)][key.node] = ns;
    }
  }
  return result;
}

void BpfRunTimeTracker::stop() noexcept {
  if (impl_) impl_->program.reset();
}

std::string BpfRunTimeTracker::attach_point() const {
  return impl_ ? impl_->program.hook() : std::string();
}

}  // namespace tier::heat
