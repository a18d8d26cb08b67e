// BpfFaultSource: loads ebpf/page_fault.bpf.c through the first hook of the
// chain that attaches, tracks the given tgids in the kernel, and turns its
// ring-buffer records into AccessSamples. See tier/heat/bpf_sources.hpp.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "hook_chain.hpp"
#include "page_fault.skel.h"
#include "percpu.hpp"
#include "tier/heat/bpf_sources.hpp"
#include "tier_events.h"
#include "tracked_processes.hpp"

namespace tier::heat {

const char* to_string(FaultHook hook) {
  switch (hook) {
    case FaultHook::tp_btf:
      return "tp_btf/page_fault_user";
    case FaultHook::raw_tp:
      return "raw_tp/page_fault_user";
    case FaultHook::tracepoint:
      return "tracepoint/exceptions/page_fault_user";
  }
  return "unknown";
}

std::vector<FaultHook> all_fault_hooks() {
  return {FaultHook::tp_btf, FaultHook::raw_tp, FaultHook::tracepoint};
}

namespace {

bpf::Hook hook_of(FaultHook hook) {
  switch (hook) {
    case FaultHook::tp_btf:
      return {to_string(hook), "fault_tp_btf", "", ""};
    case FaultHook::raw_tp:
      return {to_string(hook), "fault_raw_tp", "", ""};
    case FaultHook::tracepoint:
      return {to_string(hook), "fault_tracepoint", "exceptions", "page_fault_user"};
  }
  return {};
}

// BPF ring buffers are a power-of-two number of pages.
std::uint32_t ring_size(std::size_t requested) {
  auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::size_t bytes = std::bit_ceil(std::max(requested, page));
  return static_cast<std::uint32_t>(std::min<std::size_t>(bytes, std::size_t{1} << 30));
}

AccessSample to_sample(const tier_fault_event& event) {
  AccessSample sample;
  sample.addr = event.addr;
  sample.time_ns = event.time_ns;
  sample.pid = event.tgid;
  sample.tid = event.tid;
  sample.cpu = static_cast<std::int32_t>(event.cpu);
  // The BPF side decides: PF_PROT set, or a page this process faulted on before.
  sample.kind = event.repeat != 0 ? SampleKind::hint_fault : SampleKind::first_touch;
  return sample;
}

// How many tracked pids one poll checks for an exit (see poll()).
constexpr std::size_t kExitChecksPerPoll = 64;

}  // namespace

struct BpfFaultSource::Impl {
  SourceOptions options;
  std::vector<FaultHook> hooks;
  SysRoot live_root;
  bpf::Attached<page_fault_bpf> program;
  ring_buffer* ring = nullptr;
  std::vector<std::string> skipped;
  std::vector<pid_t> pids;
  std::vector<pid_t> exited;
  std::size_t exit_cursor = 0;                // next pid whose exit poll() checks
  std::vector<AccessSample>* sink = nullptr;  // set during poll()
  std::uint64_t samples = 0;
  std::uint64_t polls = 0;
  BpfFaultCounters final_counters;  // kept by stop(): the maps are gone afterwards

  const SysRoot& root() const { return options.root != nullptr ? *options.root : live_root; }

  // Hint faults exist only while NUMA balancing scans (see detect_repeats).
  void follow_numa_balancing() {
    bool on = root().read_int("/proc/sys/kernel/numa_balancing").value_or(0) != 0;
    program.skel()->bss->detect_repeats = on ? 1 : 0;
  }

  static int on_event(void* context, void* data, std::size_t size) {
    auto* self = static_cast<Impl*>(context);
    if (size < sizeof(tier_fault_event) || self->sink == nullptr) return 0;
    self->sink->push_back(to_sample(*static_cast<const tier_fault_event*>(data)));
    ++self->samples;
    return 0;
  }

  void drain(std::vector<AccessSample>& out) {
    sink = &out;
    ring_buffer__consume(ring);
    sink = nullptr;
  }

  BpfFaultCounters read_counters() const {
    BpfFaultCounters total;
    for (const tier_fault_counters& cpu :
         bpf::read_percpu_entry0<tier_fault_counters>(program.skel()->maps.fault_counters)) {
      total.seen += cpu.count[TIER_FAULT_SEEN];
      total.sampled_out += cpu.count[TIER_FAULT_SAMPLED_OUT];
      total.delivered += cpu.count[TIER_FAULT_DELIVERED];
      total.dropped += cpu.count[TIER_FAULT_DROPPED];
    }
    return total;
  }

  void release() noexcept {
    if (program) final_counters = read_counters();
    if (ring != nullptr) ring_buffer__free(ring);
    ring = nullptr;
    program.reset();
  }
};

BpfFaultSource::BpfFaultSource(const SourceOptions& options, std::vector<FaultHook> hooks)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  impl_->hooks = std::move(hooks);
}

BpfFaultSource::~BpfFaultSource() {
  stop();
}
BpfFaultSource::BpfFaultSource(BpfFaultSource&&) noexcept = default;
BpfFaultSource& BpfFaultSource::operator=(BpfFaultSource&&) noexcept = default;

void BpfFaultSource::start(const std::vector<pid_t>& pids) {
  Impl& d = *impl_;
  if (d.program) throw SourceError("bpf-fault: already started");
  if (d.options.sample_every == 0) throw SourceError("bpf-fault: sample_every must be >= 1");
  if (!d.root().is_live())
    throw SourceError("bpf-fault needs the live kernel, not a gathered tree");
  bpf::require_running(d.root(), pids);

  std::vector<bpf::Hook> chain;
  for (FaultHook hook : d.hooks) chain.push_back(hook_of(hook));
  d.skipped.clear();
  const std::uint32_t every = d.options.sample_every;
  const std::uint32_t ring_bytes = ring_size(d.options.ring_bytes);
  d.program = bpf::attach_first(
      "user page faults", chain,
      bpf::SkeletonApi<page_fault_bpf>{page_fault_bpf__open, page_fault_bpf__load,
                                       page_fault_bpf__destroy},
      [&](page_fault_bpf* skel) {
        skel->rodata->sample_every = every;
        bpf_map__set_max_entries(skel->maps.fault_events, ring_bytes);
      },
      d.skipped);
  try {
    d.follow_numa_balancing();
    bpf::track_tgids(d.program.skel()->maps.tracked_tgids, pids);
    d.ring = ring_buffer__new(bpf_map__fd(d.program.skel()->maps.fault_events), &Impl::on_event, &d,
                              nullptr);
    if (d.ring == nullptr)
      throw SourceError("bpf-fault: ring buffer: " + std::string(std::strerror(errno)));
  } catch (...) {
    d.release();
    throw;
  }
  d.pids = pids;
  d.exited.clear();
  d.samples = 0;
  d.polls = 0;
  d.final_counters = {};
}

PollResult BpfFaultSource::poll(std::vector<AccessSample>& out) {
  Impl& d = *impl_;
  if (!d.program) return {false, "bpf-fault: not started"};
  ++d.polls;
  d.drain(out);
  d.follow_numa_balancing();
  // Up to kExitChecksPerPoll pids per poll, in turn: each check is a /proc
  // read, and with thousands tracked (tierd's one source for all) checking
  // every pid every epoch would cost more than the faults themselves. With
  // fewer, every pid is checked at every poll.
  const std::size_t checks = std::min(d.pids.size(), kExitChecksPerPoll);
  for (std::size_t i = 0; i < checks; ++i) {
    const pid_t pid = d.pids[(d.exit_cursor + i) % d.pids.size()];
    if (std::find(d.exited.begin(), d.exited.end(), pid) != d.exited.end()) continue;
    if (bpf::process_exited(d.root(), pid)) {
      d.exited.push_back(pid);
      bpf::untrack_tgid(d.program.skel()->maps.tracked_tgids, pid);
    }
  }
  d.exit_cursor = d.pids.empty() ? 0 : (d.exit_cursor + checks) % d.pids.size();
  if (d.exited.size() < d.pids.size()) return {};
  d.drain(out);  // records the last faults submitted before the exit was seen
  return {false, bpf::exited_reason(d.exited)};
}

bool BpfFaultSource::retarget(const std::vector<pid_t>& pids) {
  Impl& d = *impl_;
  if (!d.program) return false;
  // Sets, not scans: tierd hands thousands of pids here.
  const std::unordered_set<pid_t> wanted(pids.begin(), pids.end());
  const std::unordered_set<pid_t> tracked_now(d.pids.begin(), d.pids.end());
  const bpf_map* tracked = d.program.skel()->maps.tracked_tgids;
  for (pid_t pid : d.pids) {
    if (!wanted.contains(pid)) bpf::untrack_tgid(tracked, pid);
  }
  std::vector<pid_t> added;
  for (pid_t pid : pids) {
    if (!tracked_now.contains(pid)) added.push_back(pid);
  }
  bpf::track_tgids(tracked, added);
  d.pids = pids;
  // A pid that is gone already is noticed by the next poll, as at start.
  std::erase_if(d.exited, [&](pid_t pid) { return !wanted.contains(pid); });
  return true;
}

SourceCounters BpfFaultSource::counters() const {
  return {impl_->samples, raw_counters().dropped, impl_->polls};
}

BpfFaultCounters BpfFaultSource::raw_counters() const {
  return impl_->program ? impl_->read_counters() : impl_->final_counters;
}

void BpfFaultSource::stop() noexcept {
  if (impl_) impl_->release();
}

std::string BpfFaultSource::attach_point() const {
  return impl_->program.hook();
}

std::vector<std::string> BpfFaultSource::skipped_hooks() const {
  return impl_->skipped;
}

}  // namespace tier::heat
