#include "placement/first_evidence.hpp"

#include <boost/json.hpp>

namespace tierd {

namespace {

void keep_first(std::optional<double>& slot, double now_s) {
  if (!slot) slot = now_s;
}

boost::json::value after(const std::optional<double>& listed, const std::optional<double>& event) {
  if (!listed || !event) return nullptr;
  return *event - *listed;
}

}  // namespace

void FirstEvidence::listed(const std::string& workload_id, double now_s) {
  keep_first(times_[workload_id].listed, now_s);
}

// Only a listed workload's times are kept: a move outcome or heat view that
// arrives after the workload was dropped and forgotten must not bring it back.
void FirstEvidence::sampled(const std::string& workload_id, double now_s) {
  if (auto found = times_.find(workload_id); found != times_.end()) {
    keep_first(found->second.sampled, now_s);
  }
}

void FirstEvidence::promoted(const std::string& workload_id, double now_s) {
  if (auto found = times_.find(workload_id); found != times_.end()) {
    keep_first(found->second.promoted, now_s);
  }
}

void FirstEvidence::forget(const std::string& workload_id) {
  times_.erase(workload_id);
}

boost::json::object FirstEvidence::workload_json(const std::string& workload_id) const {
  static const Times none;
  auto found = times_.find(workload_id);
  const Times& t = found == times_.end() ? none : found->second;
  return boost::json::object{{"first_samples_after_s", after(t.listed, t.sampled)},
                             {"first_promotion_after_s", after(t.listed, t.promoted)}};
}

}  // namespace tierd
