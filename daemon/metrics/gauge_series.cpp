#include "metrics/gauge_series.hpp"

namespace tierd {

void GaugeSeries::set(std::initializer_list<Label> labels, double value) {
  // Label names and values never hold '\0' (Prometheus names are
  // [a-zA-Z_][a-zA-Z0-9_]*; values are workload ids, node numbers, ...).
  key_.clear();
  for (const auto& [name, label_value] : labels) {
    key_.append(name).push_back('\0');
    key_.append(label_value).push_back('\0');
  }
  auto [it, inserted] = live_.try_emplace(key_);
  if (inserted) {
    prometheus::Labels map;
    for (const auto& [name, label_value] : labels) {
      map.emplace(std::string(name), std::string(label_value));
    }
    it->second.gauge = &family_.Add(map);
  }
  it->second.gauge->Set(value);
  it->second.generation = generation_;
}

void GaugeSeries::prune() {
  for (auto it = live_.begin(); it != live_.end();) {
    if (it->second.generation == generation_) {
      ++it;
    } else {
      family_.Remove(it->second.gauge);
      it = live_.erase(it);
    }
  }
  ++generation_;
}

}  // namespace tierd
