// Names of the workload classes (see workload_class.hpp).
#include "tier/protocol/workload_class.hpp"

namespace tier {

const char* to_string(WorkloadClass c) {
  switch (c) {
    case WorkloadClass::online:
      return "online";
    case WorkloadClass::offline:
      return "offline";
    case WorkloadClass::normal:
      return "default";
  }
  return "default";
}

std::optional<WorkloadClass> parse_workload_class(std::string_view text) {
  if (text == "online") return WorkloadClass::online;
  if (text == "offline") return WorkloadClass::offline;
  if (text == "default") return WorkloadClass::normal;
  return std::nullopt;
}

}  // namespace tier
