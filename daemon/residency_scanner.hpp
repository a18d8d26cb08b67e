// Residency of the registered workloads (bytes per node of each process, from
// its numa_maps: tier/memory/residency_totals.hpp), scanned on a worker thread so the loop keeps
// answering the control socket while a thousand workloads are read. Each epoch hands over the
// workloads in the order residency_order() gives; the worker scans them while its duty cycle has
// credit (residency_plan.hpp: 1 % of a core on average; a workload never read yet is read
// regardless) and posts the figures back to the loop.
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

#include "residency_plan.hpp"
#include "tier/posix/sysroot.hpp"

namespace tierd {

struct ResidencyJob {
  std::string workload_id;
  std::vector<pid_t> pids;
  bool always = false;  // read even when the duty cycle has no credit (ResidencyTurn)
};

struct ResidencyResult {
  std::string workload_id;
  std::map<unsigned, std::uint64_t> bytes_by_node;
  double seconds = 0;  // what the scan cost (the scanning thread's CPU time)
};

class ResidencyScanner {
 public:
  /// Receives, on the loop, the results of one batch (in job order).
  using OnResults = std::function<void(std::vector<ResidencyResult>)>;

  /// Reads /proc under `root` (tierd: Options::root); `duty` is the share
  /// of one core its scans may use on average (residency_plan.hpp).
  ResidencyScanner(boost::asio::io_context& io, tier::SysRoot root, ScanDuty duty,
                   OnResults on_results);
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
  ScanDuty duty_;  // the batch thread's alone (batches never overlap)
  OnResults on_results_;
  std::atomic<bool> busy_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace tierd
