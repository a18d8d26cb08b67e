#include "tier/heat/sample.hpp"

namespace tier::heat {

const char* to_string(SampleKind kind) {
  switch (kind) {
    case SampleKind::first_touch: return "first_touch";
    case SampleKind::hint_fault: return "hint_fault";
    case SampleKind::pmu_load: return "pmu_load";
    case SampleKind::pmu_store: return "pmu_store";
    case SampleKind::region: return "region";
    case SampleKind::written: return "written";
    case SampleKind::accessed: return "accessed";
    case SampleKind::sw_fault: return "sw_fault";
  }
  return "unknown";
}

}  // namespace tier::heat
