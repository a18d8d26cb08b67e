// "idle-page": which pages each tracked process referenced per epoch
// (Documentation/admin-guide/mm/idle_page_tracking.rst).
//
// Contract: start() reads the PFNs of the present pages of the tracked
// processes' mappings from /proc/PID/pagemap (bits 0-54; the kernel hides
// them as 0 without CAP_SYS_ADMIN, which start() reports) and sets their bits
// in /sys/kernel/mm/page_idle/bitmap. poll() re-reads the PFNs (pages may
// have been faulted in, migrated or reclaimed since), reads their bitmap
// words, emits one SampleKind::accessed sample per run of adjacent pages
// whose idle bit is clear, and marks the pages idle again for the next epoch.
// A page faulted in since the last mark reads as accessed, which it was.
// Limits: pages the kernel cannot track (the shared zero page, non-LRU pages)
// never keep an idle bit and so read as accessed every epoch; accesses
// between the read and the re-mark are lost. A process that exits is dropped
// with a reason; the source is inactive once none is left. Idle bits are
// page flags, not settings: there is nothing to undo at stop().
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <memory>
#include <optional>

#include "doctor/checks.hpp"
#include "idle_bitmap.hpp"
#include "kernel_io.hpp"
#include "page_runs.hpp"
#include "pagemap_walk.hpp"
#include "tier/heat/page_tracking.hpp"
#include "tier/heat/sources.hpp"
#include "tier/posix/error.hpp"
#include "tracked_pids.hpp"

namespace tier::heat {

namespace {

using kernel::proc_path;

struct PresentPage {
  std::uint64_t address = 0;
  std::uint64_t pfn = 0;  // 0 when the kernel hides PFNs
};

struct ProcessPages {
  pid_t pid = 0;
  std::vector<PresentPage> pages;  // ascending addresses
};

class IdlePageSource final : public HeatSource {
 public:
  explicit IdlePageSource(const SourceOptions& options)
      : root_(options.root != nullptr ? *options.root : live_root_) {}
  ~IdlePageSource() override { stop(); }

  std::string_view name() const override { return "idle-page"; }

  void start(const std::vector<pid_t>& pids) override {
    if (pids.empty()) throw SourceError("idle-page: no process to watch");
    for (pid_t pid : pids) {
      if (!root_.exists(proc_path(pid, ""))) {
        throw SourceError("idle-page: process " + std::to_string(pid) + " not found");
      }
    }
    int error = 0;
    posix::Fd fd = kernel::open_kernel_file(root_, kernel::kIdleBitmapPath, O_RDWR, error);
    if (!fd.valid()) {
      throw SourceError("idle-page: cannot open " + std::string(kernel::kIdleBitmapPath) + ": " +
                        posix::errno_text(error) +
                        (error == ENOENT ? " (CONFIG_IDLE_PAGE_TRACKING off)" : ""));
    }
    bitmap_.emplace(std::move(fd));
    tracked_.reset(pids);
    counters_ = {};
    std::vector<ProcessPages> processes = read_pages();
    for (const ProcessPages& process : processes) {
      for (const PresentPage& page : process.pages) {
        if (page.pfn == 0) {
          bitmap_.reset();
          throw SourceError("idle-page: " + proc_path(process.pid, "/pagemap") +
                            " hides page frame numbers: reading them needs CAP_SYS_ADMIN");
        }
      }
    }
    if (tracked_.alive().empty()) {
      bitmap_.reset();
      throw SourceError("idle-page: " + tracked_.result().stopped_reason);
    }
    if (error = bitmap_->mark_idle(all_pfns(processes)); error != 0) {
      bitmap_.reset();
      throw SourceError("idle-page: cannot write " + std::string(kernel::kIdleBitmapPath) + ": " +
                        posix::errno_text(error));
    }
  }

  PollResult poll(std::vector<AccessSample>& out) override {
    ++counters_.polls;
    if (!bitmap_) return {false, "idle-page: not started"};
    std::vector<ProcessPages> processes = read_pages();
    std::vector<std::uint64_t> pfns = all_pfns(processes);
    std::map<std::uint64_t, std::uint64_t> words;
    if (int error = bitmap_->read(pfns, words); error != 0) {
      return {false, "idle-page: cannot read " + std::string(kernel::kIdleBitmapPath) + ": " +
                         posix::errno_text(error)};
    }
    const std::uint64_t now = kernel::monotonic_ns();
    for (const ProcessPages& process : processes) {
      AccessSample prototype;
      prototype.pid = static_cast<std::uint32_t>(process.pid);
      prototype.kind = SampleKind::accessed;
      prototype.time_ns = now;
      kernel::PageRuns runs(out, prototype, kernel::page_size());
      for (const PresentPage& page : process.pages) {
        if (page.pfn != 0 && kernel::accessed_since_marked(words, page.pfn)) {
          runs.add(page.address);
        } else {
          runs.finish();
        }
      }
      runs.finish();
      counters_.samples += runs.emitted();
    }
    if (int error = bitmap_->mark_idle(pfns); error != 0) {
      return {false, "idle-page: cannot write " + std::string(kernel::kIdleBitmapPath) + ": " +
                         posix::errno_text(error)};
    }
    return tracked_.result();
  }

  SourceCounters counters() const override { return counters_; }

  void stop() noexcept override { bitmap_.reset(); }

 private:
  // Present pages of every process still alive; exited ones are dropped.
  std::vector<ProcessPages> read_pages() {
    std::vector<ProcessPages> processes;
    for (pid_t pid : std::vector<pid_t>(tracked_.alive())) {
      const std::string who = "process " + std::to_string(pid);
      kernel::MappingsRead maps = kernel::read_mappings(root_, pid, kernel::accessible_mapping);
      if (maps.gone) {
        tracked_.drop(pid, who + " exited");
        continue;
      }
      if (!maps.error.empty()) {
        tracked_.drop(pid, who + ": " + maps.error);
        continue;
      }
      ProcessPages process{pid, {}};
      int error = kernel::walk_pagemap(root_, pid, maps.mappings,
                                       [&](std::uint64_t address, std::uint64_t entry) {
                                         if (pagemap::present(entry)) {
                                           process.pages.push_back({address, pagemap::pfn(entry)});
                                         }
                                       });
      if (kernel::process_gone(error)) {
        tracked_.drop(pid, who + " exited");
      } else if (error != 0) {
        tracked_.drop(pid, who + ": cannot read " + proc_path(pid, "/pagemap") + ": " +
                               posix::errno_text(error));
      } else {
        processes.push_back(std::move(process));
      }
    }
    return processes;
  }

  static std::vector<std::uint64_t> all_pfns(const std::vector<ProcessPages>& processes) {
    std::vector<std::uint64_t> pfns;
    for (const ProcessPages& process : processes) {
      for (const PresentPage& page : process.pages) {
        if (page.pfn != 0) pfns.push_back(page.pfn);
      }
    }
    return pfns;
  }

  SysRoot live_root_{"/"};
  const SysRoot& root_;
  std::optional<kernel::IdleBitmap> bitmap_;
  kernel::TrackedPids tracked_;
  SourceCounters counters_;
};

// Live only: can this process read PFNs? Reads its own pagemap entry for a
// page it just touched; the kernel zeroes the PFN without CAP_SYS_ADMIN.
std::string live_pfn_problem() {
  static volatile std::uint64_t touched = 1;
  touched = touched + 1;
  int error = 0;
  posix::Fd fd = kernel::open_kernel_file(SysRoot("/"), "/proc/self/pagemap", O_RDONLY, error);
  if (!fd.valid()) return "cannot open /proc/self/pagemap: " + posix::errno_text(error);
  std::uint64_t entry = 0;
  auto address = reinterpret_cast<std::uintptr_t>(&touched);
  if (kernel::pread_full(fd.get(), &entry, sizeof entry,
                         address / kernel::page_size() * pagemap::kEntryBytes) !=
      static_cast<ssize_t>(sizeof entry)) {
    return "cannot read /proc/self/pagemap: " + posix::errno_text(errno);
  }
  if (pagemap::pfn(entry) == 0) return "pagemap hides page frame numbers: needs CAP_SYS_ADMIN";
  return {};
}

}  // namespace

SourceAvailability idle_page_availability(const SysRoot& root) {
  doctor::Probers none;
  doctor::CheckResult check = doctor::check_idle_page(doctor::Context{root, none});
  if (check.status != doctor::Status::ok) return {false, check.detail};
  if (!root.is_live()) return {true, check.detail + " (fixture root: access not tried)"};
  if (access(root.path(kernel::kIdleBitmapPath).c_str(), R_OK | W_OK) != 0) {
    return {false, std::string(kernel::kIdleBitmapPath) +
                       " not readable and writable: " + posix::errno_text(errno)};
  }
  if (std::string problem = live_pfn_problem(); !problem.empty()) return {false, problem};
  return {true, check.detail + ", page frame numbers readable"};
}

std::unique_ptr<HeatSource> make_idle_page_source(const SourceOptions& options) {
  return std::make_unique<IdlePageSource>(options);
}

}  // namespace tier::heat
