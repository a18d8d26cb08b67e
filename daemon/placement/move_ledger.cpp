// The move ledger: sums of MoveReports, kept for status.
#include "placement/move_ledger.hpp"

#include <boost/json.hpp>

namespace tierd {

namespace json = boost::json;

namespace {

// Reasons kept per workload for `tierctl status`.
constexpr std::size_t kReasonsKept = 5;

// Pages the kernel would not move for a reason worth reporting (pages not
// present or already on the target are not failures).
std::uint64_t failed(const tier::MoveCounts& pages) {
  return pages.busy + pages.no_memory + pages.permission + pages.other;
}

// What an operator reads when a node is full (no_memory), pages are pinned
// (busy), a process left mid-move (process_gone) or a batch stopped early
// (skipped: cancelled, the free-memory floor, a fatal error), or the
// process's own memory policy or cpuset kept a page where it is
// (against_policy: never attempted).
json::object not_moved(const tier::MoveCounts& pages) {
  return json::object{{"busy", pages.busy},
                      {"no_memory", pages.no_memory},
                      {"permission", pages.permission},
                      {"process_gone", pages.process_gone},
                      {"other", pages.other},
                      {"skipped", pages.skipped},
                      {"against_policy", pages.against_policy}};
}

}  // namespace

const std::string& MoveLedger::record(const MoveOutcome& outcome) {
  ++batches_;
  moved_bytes_ += outcome.report.bytes.moved;
  pages_ += outcome.report.pages;
  Workload& w = workloads_[outcome.workload_id];
  const bool promote = outcome.direction == MigrationDirection::promote;
  (promote ? w.promoted_bytes : w.demoted_bytes) += outcome.report.bytes.moved;
  (promote ? w.promoted_pages : w.demoted_pages) += outcome.report.pages.moved;
  w.pages += outcome.report.pages;
  std::string note = outcome.reason + " (" + std::to_string(outcome.report.bytes.moved >> 10) +
                     " KiB to node " + std::to_string(outcome.target_node) + ")";
  if (outcome.report.pages.against_policy > 0) {
    note += "; " + std::to_string(outcome.report.pages.against_policy) +
            " page(s) left where they are: " + outcome.report.policy_detail;
  }
  if (outcome.report.stop_reason != tier::StopReason::completed) {
    const std::string reason = tier::to_string(outcome.report.stop_reason);
    ++stops_[reason];
    note += "; stopped: " + reason + " " + outcome.report.stop_detail;
  }
  w.last_reasons.push_back(std::move(note));
  while (w.last_reasons.size() > kReasonsKept) w.last_reasons.pop_front();
  return w.last_reasons.back();
}

void MoveLedger::forget(const std::string& workload_id) {
  workloads_.erase(workload_id);
}

json::object MoveLedger::workload_json(const std::string& workload_id) const {
  static const Workload none;
  auto found = workloads_.find(workload_id);
  const Workload& w = found == workloads_.end() ? none : found->second;
  json::array reasons;
  for (const std::string& reason : w.last_reasons) reasons.push_back(json::string(reason));
  return json::object{{"promoted_bytes", w.promoted_bytes}, {"demoted_bytes", w.demoted_bytes},
                      {"promoted_pages", w.promoted_pages}, {"demoted_pages", w.demoted_pages},
                      {"failed_pages", failed(w.pages)},    {"not_moved_pages", not_moved(w.pages)},
                      {"last_reasons", std::move(reasons)}};
}

json::object MoveLedger::not_moved_json() const {
  return not_moved(pages_);
}

json::object MoveLedger::stops_json() const {
  json::object stops;
  for (const auto& [reason, count] : stops_) stops[reason] = count;
  return stops;
}

}  // namespace tierd
