// The series of one gauge family as of the latest tick. Series not set again
// since the previous prune() are removed, so a workload that exited or a node
// that went away disappears from scrapes instead of showing its last value.
//
// Set for every workload every epoch (thousands on a server tierd discovers
// by itself): a series is found by one hash of its labels flattened to a
// string, and prometheus::Labels (a std::map) is built only for a new series.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <prometheus/family.h>
#include <prometheus/gauge.h>

namespace tierd {

class GaugeSeries {
 public:
  using Label = std::pair<std::string_view, std::string_view>;  // name, value

  explicit GaugeSeries(prometheus::Family<prometheus::Gauge>& family) : family_(family) {}

  void set(std::initializer_list<Label> labels, double value);
  /// Removes every series not set since the last prune().
  void prune();

 private:
  struct Series {
    prometheus::Gauge* gauge = nullptr;
    std::uint64_t generation = 0;  // the prune() round it was last set in
  };
  prometheus::Family<prometheus::Gauge>& family_;
  std::unordered_map<std::string, Series> live_;
  std::uint64_t generation_ = 0;
  std::string key_;  // reused between set() calls
};

}  // namespace tierd
