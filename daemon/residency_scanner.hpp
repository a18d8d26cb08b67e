// Residency of the registered workloads (move_pages over every mapping),
// scanned on a worker thread so the loop keeps answering the control socket
// while a thousand workloads are read. Each epoch hands over the workloads in
// round-robin order; the worker scans as many as fit its time budget and
// posts the figures back to the loop.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tier/posix/sysroot.hpp"

namespace tierd {

struct ResidencyJob {
  std::string workload_id;
  std::vector<pid_t> pids;
};

struct ResidencyResult {
  std::string workload_id;
  std::map<unsigned, std::uint64_t> bytes_by_node;
};

class ResidencyScanner {
 public:
  /// Receives, on the loop, the results of one batch (in job order).
  using OnResults = std::function<void(std::vector<ResidencyResult>)>;

  /// Reads /proc under `root` (tierd: Options::root).
  ResidencyScanner(boost::asio::io_context& io, tier::SysRoot root,
                   std::chrono::milliseconds budget, OnResults on_results);
  /// Stops a running batch at its next workload and waits for the thread.
  ~ResidencyScanner();
  ResidencyScanner(const ResidencyScanner&) = delete;
  ResidencyScanner& operator=(const ResidencyScanner&) = delete;

  /// Starts a batch unless the previous one still runs (then returns false:
  /// the next epoch tries again).
  bool start(std::vector<ResidencyJob> jobs);

 private:
  boost::asio::io_context& io_;
  const tier::SysRoot root_;
  std::chrono::milliseconds budget_;
  OnResults on_results_;
  std::atomic<bool> busy_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace tierd
