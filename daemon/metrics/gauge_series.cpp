#include "metrics/gauge_series.hpp"

namespace tierd {

void GaugeSeries::set(const prometheus::Labels& labels, double value) {
  auto [it, inserted] = live_.try_emplace(labels, nullptr);
  if (inserted) it->second = &family_.Add(labels);
  it->second->Set(value);
  seen_.insert(labels);
}

void GaugeSeries::prune() {
  for (auto it = live_.begin(); it != live_.end();) {
    if (seen_.contains(it->first)) {
      ++it;
    } else {
      family_.Remove(it->second);
      it = live_.erase(it);
    }
  }
  seen_.clear();
}

}  // namespace tierd
