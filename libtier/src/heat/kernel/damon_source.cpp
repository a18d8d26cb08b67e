// "damon": per-process access frequencies from monitoring-only kdamonds
// (contract in tier/heat/damon_source.hpp, sysfs writes in damon_sysfs.cpp).
//
// poll() asks each running kdamond to publish the regions its `stat` scheme
// tried in the next aggregation (state <- update_schemes_tried_regions; the
// kernel answers after that aggregation, so a poll can take up to one
// aggregation interval) and turns schemes/0/tried_regions/N/{start,end,
// nr_accesses} into SampleKind::region samples, weight = nr_accesses (samples
// per aggregation that found the region accessed). Regions never accessed
// (nr_accesses 0) give no sample. A vaddr kdamond stops by itself when its
// process exits; the source is inactive once all have.
//
// counters().drops counts what could not be collected: epochs whose update
// the kernel refused with EBUSY (another DAMON sysfs writer held its lock) and
// tried-region directories that vanished while being read.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "damon_sysfs.hpp"
#include "kernel_io.hpp"
#include "tier/heat/sources.hpp"
#include "tier/posix/error.hpp"

namespace tier::heat {

namespace {

using kernel::kdamond_path;
using kernel::kNrKdamonds;

constexpr std::string_view kStateOff = "off";

struct Kdamond {
  unsigned index = 0;
  pid_t pid = 0;
  bool running = true;
};

class DamonSourceImpl final : public DamonSource {
 public:
  explicit DamonSourceImpl(const SourceOptions& options)
      : root_(options.root != nullptr ? *options.root : live_root_), interval_(options.interval) {}
  ~DamonSourceImpl() override { stop(); }

  std::string_view name() const override { return "damon"; }

  void start(const std::vector<pid_t>& pids) override {
    if (created_ != 0) throw SourceError("damon: already started");
    if (pids.empty()) throw SourceError("damon: no process to watch");
    const DamonSettings settings = damon_settings(interval_);
    check_slot_free();
    for (pid_t pid : pids) {
      if (!root_.exists(kernel::proc_path(pid, ""))) {
        throw SourceError("damon: process " + std::to_string(pid) + " not found");
      }
    }
    kernel::write_or_throw(root_, std::string(kNrKdamonds), std::to_string(pids.size()));
    created_ = static_cast<unsigned>(pids.size());  // from here on stop() removes them
    stop_errors_.clear();
    counters_ = {};
    try {
      for (unsigned i = 0; i < created_; ++i)
        kernel::configure_kdamond(root_, i, pids[i], settings);
      for (unsigned i = 0; i < created_; ++i) {
        kernel::write_or_throw(root_, kdamond_path(i, "/state"), "on");
        kdamonds_.push_back({i, pids[i], true});
      }
    } catch (const SourceError& error) {
      stop();
      std::string message = error.what();
      for (const std::string& problem : stop_errors_) message += "; clean-up: " + problem;
      throw SourceError(message);
    }
  }

  PollResult poll(std::vector<AccessSample>& out) override {
    ++counters_.polls;
    if (created_ == 0) return {false, "damon: not started"};
    const std::uint64_t now = kernel::monotonic_ns();
    for (Kdamond& kdamond : kdamonds_) {
      if (!kdamond.running) continue;
      if (auto failure = collect(kdamond, now, out)) return {false, *failure};
    }
    std::string exited;
    for (const Kdamond& kdamond : kdamonds_) {
      if (kdamond.running) return {};
      exited += (exited.empty() ? "" : ", ") + std::to_string(kdamond.pid);
    }
    return {false, "kdamond stopped: tracked processes exited (pid " + exited + ")"};
  }

  SourceCounters counters() const override { return counters_; }

  void stop() noexcept override {
    if (created_ == 0) return;
    try {
      for (unsigned i = 0; i < created_; ++i) turn_off(i);
      if (int error = write_retrying(std::string(kNrKdamonds), "0"); error != 0) {
        stop_errors_.push_back("writing '0' to " + std::string(kNrKdamonds) +
                               " failed: " + posix::errno_text(error));
      }
      for (const std::string& problem : stop_errors_)
        std::cerr << "tier: damon: " << problem << '\n';
    } catch (...) {
      // Only allocation can throw here; nothing better to do in a noexcept stop.
    }
    created_ = 0;
    kdamonds_.clear();
  }

  std::vector<std::string> stop_errors() const override { return stop_errors_; }

 private:
  void check_slot_free() const {
    if (!root_.exists(kernel::kDamonAdmin)) {
      throw SourceError("damon: no " + std::string(kernel::kDamonAdmin) +
                        " (DAMON or CONFIG_DAMON_SYSFS not built)");
    }
    auto existing = root_.read_int(kNrKdamonds);
    if (!existing) throw SourceError("damon: cannot read " + std::string(kNrKdamonds));
    if (*existing != 0) {
      throw SourceError("damon: " + std::to_string(*existing) +
                        " kdamond(s) exist, not tier's: left untouched");
    }
  }

  bool is_off(unsigned index) const {
    auto state = root_.read(kdamond_path(index, "/state"));
    return !state || *state == kStateOff;
  }

  // Returns a reason when the source cannot go on; nullopt otherwise.
  std::optional<std::string> collect(Kdamond& kdamond, std::uint64_t now,
                                     std::vector<AccessSample>& out) {
    if (is_off(kdamond.index)) {
      kdamond.running = false;
      return std::nullopt;
    }
    const std::string state = kdamond_path(kdamond.index, "/state");
    if (int error = kernel::write_kernel_file(root_, state, "update_schemes_tried_regions")) {
      if (is_off(kdamond.index)) {
        kdamond.running = false;  // it stopped between the two looks
      } else if (error == EBUSY) {
        ++counters_.drops;
      } else {
        return "damon: writing 'update_schemes_tried_regions' to " + state +
               " failed: " + posix::errno_text(error);
      }
      return std::nullopt;
    }
    std::uint64_t unreadable = 0;
    for (const kernel::TriedRegion& region :
         kernel::read_tried_regions(root_, kdamond.index, unreadable)) {
      if (region.nr_accesses == 0) continue;
      AccessSample sample;
      sample.addr = region.start;
      sample.length = region.end - region.start;
      sample.weight = region.nr_accesses;
      sample.pid = static_cast<std::uint32_t>(kdamond.pid);
      sample.time_ns = now;
      sample.kind = SampleKind::region;
      out.push_back(sample);
      ++counters_.samples;
    }
    counters_.drops += unreadable;
    return std::nullopt;
  }

  void turn_off(unsigned index) {
    if (is_off(index)) return;
    const std::string state = kdamond_path(index, "/state");
    int error = write_retrying(state, kStateOff);
    // EPERM: it stopped by itself between the read and the write.
    if (error != 0 && !is_off(index)) {
      stop_errors_.push_back("writing 'off' to " + state + " failed: " + posix::errno_text(error));
    }
  }

  // DAMON sysfs takes its lock with trylock and answers EBUSY to a writer that
  // races another; a few short retries ride that out.
  int write_retrying(const std::string& path, std::string_view value) const {
    int error = 0;
    for (int attempt = 0; attempt < 5; ++attempt) {
      error = kernel::write_kernel_file(root_, path, value);
      if (error != EBUSY) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return error;
  }

  SysRoot live_root_{"/"};
  const SysRoot& root_;
  std::chrono::milliseconds interval_;
  unsigned created_ = 0;  // kdamonds this source made (nr_kdamonds it wrote)
  std::vector<Kdamond> kdamonds_;
  std::vector<std::string> stop_errors_;
  SourceCounters counters_;
};

}  // namespace

DamonSettings damon_settings(std::chrono::milliseconds interval) {
  if (interval.count() < 1) {
    throw SourceError("damon: the aggregation interval must be at least 1 ms, got " +
                      std::to_string(interval.count()) + " ms");
  }
  DamonSettings settings;
  settings.aggr_us = static_cast<std::uint64_t>(interval.count()) * 1000;
  settings.sample_us = settings.aggr_us / 20;
  return settings;
}

std::unique_ptr<DamonSource> make_damon_source_detailed(const SourceOptions& options) {
  return std::make_unique<DamonSourceImpl>(options);
}

std::unique_ptr<HeatSource> make_damon_source(const SourceOptions& options) {
  return make_damon_source_detailed(options);
}

}  // namespace tier::heat
