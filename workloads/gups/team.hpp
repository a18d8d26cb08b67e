// The threads of one tier-gups pass (the measured run, the replay, the
// check): thread i runs job(i) pinned to the i-th CPU of --cpus. Every
// thread is pinned before any job starts, so a refused pinning fails the
// pass before it begins instead of skewing its figure.
#pragma once

#include <atomic>
#include <functional>
#include <latch>
#include <thread>
#include <vector>

#include "tier/cpu/cpulist.hpp"

namespace tier_workloads::gups {

class Team {
 public:
  /// Starts `n` threads; throws std::runtime_error naming the worker and the
  /// CPU when one cannot be pinned (then no job has run).
  Team(unsigned n, const tier::CpuList& cpus, const std::function<void(unsigned)>& job);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;
  /// Waits for every job to return.
  void join();

 private:
  // What the threads share with the constructor; members, so that a thread
  // still leaving wait() never touches a destroyed object.
  std::latch pinned_;
  std::atomic<int> go_{0};   // 1: run the jobs, -1: do not (a pinning failed)
  std::vector<int> errors_;  // errno of each thread's pinning, 0: pinned
  std::vector<std::thread> threads_;
};

/// Runs a Team to its end.
void run_team(unsigned n, const tier::CpuList& cpus, const std::function<void(unsigned)>& job);

}  // namespace tier_workloads::gups
