#include "kernel_activity.hpp"

#include <chrono>

#include "tier/heat/bpf_sources.hpp"

namespace tier::heat {

struct KernelActivityWatch::Impl {
  pid_t pid = 0;
  BpfRunTimeTracker run_time;
  BpfMigrationCounter migrations;
  KernelActivity result;
  bool run_time_started = false, migrations_started = false;
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
};

KernelActivityWatch::KernelActivityWatch(pid_t pid, const std::vector<int>& cpu_node)
    : impl_(std::make_unique<Impl>()) {
  impl_->pid = pid;
  try {
    impl_->run_time.start({pid}, cpu_node);
    impl_->run_time_started = true;
    impl_->result.run_time_hook = impl_->run_time.attach_point();
  } catch (const std::exception& e) {
    impl_->result.run_time_error = e.what();
  }
  try {
    impl_->migrations.start();
    impl_->migrations_started = true;
    impl_->result.migrations_hook = impl_->migrations.attach_point();
  } catch (const std::exception& e) {
    impl_->result.migrations_error = e.what();
  }
}

KernelActivityWatch::~KernelActivityWatch() = default;

KernelActivity KernelActivityWatch::finish() {
  KernelActivity& r = impl_->result;
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->since).count();
  if (impl_->run_time_started) {
    const auto all = impl_->run_time.read();
    if (auto it = all.find(impl_->pid); it != all.end()) r.run_time_ns_by_node = it->second;
    impl_->run_time.stop();
  }
  if (impl_->migrations_started) {
    const auto counts = impl_->migrations.read();
    r.migrations_succeeded = counts.succeeded;
    r.migrations_failed = counts.failed;
    for (unsigned reason = 0; reason < KernelMigrationCounts::kReasons; ++reason) {
      if (counts.succeeded_by_reason[reason] != 0) {
        r.migrated_by_reason[migrate_reason_name(reason)] = counts.succeeded_by_reason[reason];
      }
    }
    impl_->migrations.stop();
  }
  return r;
}

}  // namespace tier::heat
