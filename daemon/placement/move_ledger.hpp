// What tierd's moves did, per workload and in total: the bytes and pages
// promoted and demoted, the pages the kernel did not move by reason, the
// batches that stopped early by reason, and each workload's last reasons.
// The loop records every MoveOutcome the placement worker hands back;
// `tierctl status` (placement section) shows the ledger.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "placement/placement_worker.hpp"
#include "tier/memory/page_mover.hpp"

namespace tierd {

class MoveLedger {
 public:
  /// Adds one batch's outcome; returns the note kept as the workload's
  /// newest reason ("promote: ... (2048 KiB to node 0)[; stopped: ...]").
  const std::string& record(const MoveOutcome& outcome);
  /// Drops a workload that went away (the totals keep what it did).
  void forget(const std::string& workload_id);

  std::uint64_t batches() const { return batches_; }
  std::uint64_t moved_bytes() const { return moved_bytes_; }

  /// promoted_bytes, demoted_bytes, promoted_pages, demoted_pages,
  /// failed_pages, not_moved_pages, last_reasons; zeros for an unknown id.
  boost::json::object workload_json(const std::string& workload_id) const;
  /// Every workload's pages not moved, by reason, since tierd started.
  boost::json::object not_moved_json() const;
  /// Batches that ended before their last page, by stop reason.
  boost::json::object stops_json() const;

 private:
  struct Workload {
    std::uint64_t promoted_bytes = 0, demoted_bytes = 0;
    std::uint64_t promoted_pages = 0, demoted_pages = 0;
    tier::MoveCounts pages;                // every page outcome, by reason
    std::deque<std::string> last_reasons;  // newest last, a few kept
  };
  std::map<std::string, Workload> workloads_;
  tier::MoveCounts pages_;
  std::map<std::string, std::uint64_t> stops_;
  std::uint64_t batches_ = 0, moved_bytes_ = 0;
};

}  // namespace tierd
