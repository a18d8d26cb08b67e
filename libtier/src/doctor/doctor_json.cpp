// JSON form of the report, the stable machine-readable interface of doctor.
#include <boost/json.hpp>

#include "tier/doctor/doctor.hpp"
#include "tier/json/json_text.hpp"

namespace tier::doctor {

std::string to_json(const std::vector<CheckResult>& results) {
  boost::json::array checks;
  for (const auto& result : results) {
    checks.push_back(boost::json::object{{"name", result.name},
                                         {"status", to_string(result.status)},
                                         {"detail", result.detail},
                                         {"impact", result.impact}});
  }
  return json_text(boost::json::object{{"checks", std::move(checks)}});
}

}  // namespace tier::doctor
