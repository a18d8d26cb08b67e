#include "residency_scanner.hpp"

#include <boost/asio/post.hpp>

#include "steady_seconds.hpp"
#include "tier/memory/memory_syscalls.hpp"
#include "tier/memory/residency.hpp"

namespace tierd {

ResidencyScanner::ResidencyScanner(boost::asio::io_context& io, tier::SysRoot root, ScanDuty duty,
                                   OnResults on_results)
    : io_(io), root_(std::move(root)), duty_(duty), on_results_(std::move(on_results)) {}

ResidencyScanner::~ResidencyScanner() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

bool ResidencyScanner::start(std::vector<ResidencyJob> jobs) {
  if (jobs.empty() || busy_.exchange(true)) return false;
  if (thread_.joinable()) thread_.join();  // the previous batch has posted its results
  thread_ = std::thread([this, jobs = std::move(jobs)] {
    duty_.accrue(steady_seconds());
    std::vector<ResidencyResult> results;
    for (const ResidencyJob& job : jobs) {
      if (stopping_.load() || (!job.first && !duty_.may_scan())) break;
      const double started = steady_seconds();
      ResidencyResult result{job.workload_id, {}, 0};
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
      result.seconds = steady_seconds() - started;
      duty_.spend(result.seconds);
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
