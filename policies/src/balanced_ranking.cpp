#include "balanced_ranking.hpp"

namespace tier::policy::balanced {

int class_rank(WorkloadClass workload_class) {
  switch (workload_class) {
    case WorkloadClass::offline:
      return 0;
    case WorkloadClass::normal:
      return 1;
    case WorkloadClass::online:
      return 2;
  }
  return 1;
}

VictimKey victim_key(bool in_target, int class_rank, int priority, double density,
                     std::uint32_t index) {
  const auto biased = static_cast<std::uint64_t>(std::clamp(priority, -32768, 32767) + 32768);
  return {std::uint64_t{in_target} << 63 | static_cast<std::uint64_t>(class_rank) << 61 |
              biased << 45 | std::bit_cast<std::uint64_t>(std::max(density, 0.0)) >> 18,
          index};
}

}  // namespace tier::policy::balanced
