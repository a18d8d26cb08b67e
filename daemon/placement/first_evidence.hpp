// How fast tierd acts on a new workload: for each one, the seconds from when
// tierd first listed it to its first heat samples and to its first promoted
// byte (issue 19's "first evidence": a promotion within 2 s of a hot set
// appearing). Steady-clock seconds, so a clock step cannot bend them;
// `tierctl status` (placement section) shows them per workload.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <optional>
#include <string>

#include "steady_seconds.hpp"

namespace tierd {

class FirstEvidence {
 public:
  /// Each keeps the first time it is told for a workload; later calls are
  /// ignored until forget(). sampled() and promoted() count only for a
  /// workload listed (and not forgotten) before.
  void listed(const std::string& workload_id, double now_s);
  void sampled(const std::string& workload_id, double now_s);
  void promoted(const std::string& workload_id, double now_s);
  /// Drops a workload that went away (a new one with its id starts over).
  void forget(const std::string& workload_id);

  /// {"first_samples_after_s": s | null, "first_promotion_after_s": s | null}:
  /// seconds after the workload was listed, null until it happened (or when
  /// the workload was never listed).
  boost::json::object workload_json(const std::string& workload_id) const;

 private:
  struct Times {
    std::optional<double> listed, sampled, promoted;
  };
  std::map<std::string, Times> times_;
};

}  // namespace tierd
