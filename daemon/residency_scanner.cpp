#include "residency_scanner.hpp"

#include <boost/asio/post.hpp>

#include "tier/memory/memory_syscalls.hpp"
#include "tier/memory/residency.hpp"

namespace tierd {

ResidencyScanner::ResidencyScanner(boost::asio::io_context& io, tier::SysRoot root,
                                   std::chrono::milliseconds budget, OnResults on_results)
    : io_(io), root_(std::move(root)), budget_(budget), on_results_(std::move(on_results)) {}

ResidencyScanner::~ResidencyScanner() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

bool ResidencyScanner::start(std::vector<ResidencyJob> jobs) {
  if (jobs.empty() || busy_.exchange(true)) return false;
  if (thread_.joinable()) thread_.join();  // the previous batch has posted its results
  thread_ = std::thread([this, jobs = std::move(jobs)] {
    const auto deadline = std::chrono::steady_clock::now() + budget_;
    std::vector<ResidencyResult> results;
    for (const ResidencyJob& job : jobs) {
      if (stopping_.load() || std::chrono::steady_clock::now() >= deadline) break;
      ResidencyResult result{job.workload_id, {}};
      for (pid_t pid : job.pids) {
        try {
          tier::ResidencyReport report =
              tier::scan_residency(root_, tier::real_memory_syscalls(), pid);
          for (const auto& [node, residency] : report.nodes) {
            result.bytes_by_node[node] += residency.bytes;
          }
        } catch (const std::exception&) {
          // Gone since the liveness check: the next refresh drops it.
        }
      }
      results.push_back(std::move(result));
    }
    boost::asio::post(io_, [this, results = std::move(results)]() mutable {
      busy_.store(false);
      on_results_(std::move(results));
    });
  });
  return true;
}

}  // namespace tierd
