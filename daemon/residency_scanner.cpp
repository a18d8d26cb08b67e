#include "residency_scanner.hpp"

#include <boost/asio/post.hpp>

#include "steady_seconds.hpp"
#include "tier/memory/residency_totals.hpp"

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
      if (stopping_.load() || (!job.always && !duty_.may_scan())) break;
      const double started = thread_cpu_seconds();
      ResidencyResult result{job.workload_id, {}, 0};
      for (pid_t pid : job.pids) {
        // Totals only, from the kernel's walk: no page-by-page queries
        // (residency_totals.hpp). Gone since the liveness check: nothing,
        // and the next refresh drops it.
        auto totals = tier::resident_bytes_by_node(root_, pid);
        if (!totals) continue;
        for (const auto& [node, bytes] : *totals) result.bytes_by_node[node] += bytes;
      }
      result.seconds = thread_cpu_seconds() - started;
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
