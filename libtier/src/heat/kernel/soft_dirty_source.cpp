// "soft-dirty": which pages each tracked process wrote per epoch
// (Documentation/admin-guide/mm/soft-dirty.rst).
//
// Contract: start() writes "4" to /proc/PID/clear_refs of every pid, which
// clears the soft-dirty bits of that process only. poll() reads pagemap for
// the writable mappings, emits one SampleKind::written sample per run of
// adjacent pages whose bit 55 is set, then writes "4" again to begin the next
// epoch. Only present or swapped pages count: after clear_refs the kernel
// marks whole new VMAs soft-dirty, and pagemap then reports bit 55 even for
// their never-touched holes, which are not writes. A write that lands
// between the pagemap read and the next clear_refs is lost (the kernel has no
// atomic read-and-clear). A process that exits is dropped with a reason; the
// source is inactive once none is left. Nothing to undo at stop(): clear_refs
// only resets bits.
#include <memory>
#include <unordered_set>

#include "doctor/checks.hpp"
#include "kernel_io.hpp"
#include "page_runs.hpp"
#include "pagemap_walk.hpp"
#include "tier/doctor/doctor.hpp"
#include "tier/heat/page_tracking.hpp"
#include "tier/heat/sources.hpp"
#include "tier/posix/error.hpp"
#include "tracked_pids.hpp"

namespace tier::heat {

namespace {

using kernel::proc_path;

constexpr std::string_view kClearSoftDirty = "4";

class SoftDirtySource final : public HeatSource {
 public:
  explicit SoftDirtySource(const SourceOptions& options)
      : root_(options.root != nullptr ? *options.root : live_root_) {}
  ~SoftDirtySource() override { stop(); }

  std::string_view name() const override { return "soft-dirty"; }

  void start(const std::vector<pid_t>& pids) override {
    if (pids.empty()) throw SourceError("soft-dirty: no process to watch");
    for (pid_t pid : pids) {
      if (!root_.exists(proc_path(pid, ""))) {
        throw SourceError("soft-dirty: process " + std::to_string(pid) + " not found");
      }
    }
    for (pid_t pid : pids) {
      if (int error = clear(pid); error != 0) {
        throw SourceError("soft-dirty: cannot write 4 to " + proc_path(pid, "/clear_refs") + ": " +
                          posix::errno_text(error));
      }
    }
    tracked_.reset(pids);
    counters_ = {};
    started_ = true;
  }

  PollResult poll(std::vector<AccessSample>& out) override {
    ++counters_.polls;
    if (!started_) return {false, "soft-dirty: not started"};
    for (pid_t pid : std::vector<pid_t>(tracked_.alive())) poll_one(pid, out);
    return tracked_.result();
  }

  // New processes start clean (clear_refs) so their first poll reports this
  // epoch's writes; one whose clear fails is dropped as poll() would.
  bool retarget(const std::vector<pid_t>& pids) override {
    if (!started_) return false;
    const std::unordered_set<pid_t> tracked_now(tracked_.alive().begin(), tracked_.alive().end());
    std::vector<pid_t> added;
    for (pid_t pid : pids) {
      if (!tracked_now.contains(pid)) added.push_back(pid);
    }
    tracked_.reset(pids);
    for (pid_t pid : added) {
      const std::string who = "process " + std::to_string(pid);
      if (int error = clear(pid); error != 0) {
        tracked_.drop(pid,
                      kernel::process_gone(error)
                          ? who + " exited"
                          : who + ": cannot write 4 to clear_refs: " + posix::errno_text(error));
      }
    }
    return true;
  }

  SourceCounters counters() const override { return counters_; }

  void stop() noexcept override { started_ = false; }

 private:
  int clear(pid_t pid) const {
    return kernel::write_kernel_file(root_, proc_path(pid, "/clear_refs"), kClearSoftDirty);
  }

  void poll_one(pid_t pid, std::vector<AccessSample>& out) {
    const std::string who = "process " + std::to_string(pid);
    kernel::MappingsRead maps = kernel::read_mappings(root_, pid, kernel::writable_mapping);
    if (maps.gone) return tracked_.drop(pid, who + " exited");
    if (!maps.error.empty()) return tracked_.drop(pid, who + ": " + maps.error);

    AccessSample prototype;
    prototype.pid = static_cast<std::uint32_t>(pid);
    prototype.kind = SampleKind::written;
    prototype.time_ns = kernel::monotonic_ns();
    kernel::PageRuns runs(out, prototype, kernel::page_size());
    int error = kernel::walk_pagemap(
        root_, pid, maps.mappings, [&](std::uint64_t address, std::uint64_t entry) {
          bool mapped = pagemap::present(entry) || pagemap::swapped(entry);
          if (mapped && pagemap::soft_dirty(entry)) {
            runs.add(address);
          } else {
            runs.finish();
          }
        });
    runs.finish();
    counters_.samples += runs.emitted();
    if (error == 0) error = clear(pid);
    if (kernel::process_gone(error)) return tracked_.drop(pid, who + " exited");
    if (error != 0) {
      tracked_.drop(
          pid, who + ": reading pagemap or writing clear_refs failed: " + posix::errno_text(error));
    }
  }

  SysRoot live_root_{"/"};
  const SysRoot& root_;
  kernel::TrackedPids tracked_;
  SourceCounters counters_;
  bool started_ = false;
};

}  // namespace

SourceAvailability soft_dirty_availability(const SysRoot& root) {
  if (!root.is_live()) {
    // A gathered tree cannot run the round trip; it can only show the files.
    bool files = root.exists("/proc/self/clear_refs") && root.exists("/proc/self/pagemap");
    return {files,
            files ? "fixture root: /proc/self/clear_refs and pagemap present (round trip "
                    "not tried on a gathered tree)"
                  : "no /proc/self/clear_refs or /proc/self/pagemap under " + root.root().string()};
  }
  // The doctor's check runs the documented write / clear_refs / rewrite test.
  auto prober = doctor::make_live_soft_dirty_prober();
  doctor::Probers probers;
  probers.soft_dirty = prober.get();
  doctor::CheckResult check = doctor::check_soft_dirty(doctor::Context{root, probers});
  return {check.status == doctor::Status::ok, check.detail};
}

std::unique_ptr<HeatSource> make_soft_dirty_source(const SourceOptions& options) {
  return std::make_unique<SoftDirtySource>(options);
}

}  // namespace tier::heat
