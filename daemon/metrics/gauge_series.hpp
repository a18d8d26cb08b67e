// The series of one gauge family as of the latest tick. Series not set again
// since the previous prune() are removed, so a workload that exited or a node
// that went away disappears from scrapes instead of showing its last value.
#pragma once

#include <map>
#include <set>

#include <prometheus/family.h>
#include <prometheus/gauge.h>

namespace tierd {

class GaugeSeries {
 public:
  explicit GaugeSeries(prometheus::Family<prometheus::Gauge>& family) : family_(family) {}

  void set(const prometheus::Labels& labels, double value);
  /// Removes every series not set since the last prune().
  void prune();

 private:
  prometheus::Family<prometheus::Gauge>& family_;
  std::map<prometheus::Labels, prometheus::Gauge*> live_;
  std::set<prometheus::Labels> seen_;
};

}  // namespace tierd
