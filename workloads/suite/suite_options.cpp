#include "suite_options.hpp"

#include <numa.h>

#include <chrono>

#include "tier/values/values.hpp"

namespace tier_workloads {

namespace values = tier::values;
using std::chrono::milliseconds;

const char* const kSuiteUsage =
    "  --node N             first placement of the data (a NUMA node)\n"
    "  --policy P           bind | bind-balancing | first-touch (default)\n"
    "  --cpus LIST          pin worker i to the i-th CPU of LIST (e.g. 0-1)\n"
    "  --threads N          workers, 1-256 (default 1)\n"
    "  --duration D         measured run length, e.g. 30s, 500ms (default: until SIGTERM)\n"
    "  --start-file FILE    start the measured run once FILE exists\n"
    "  --ready-file FILE    created once the data is placed\n"
    "  --report FILE        one JSON line per interval (and the final line)\n"
    "  --report-ms MS       the interval, 100-60000 (default 1000)\n"
    "  --seed N             random seed (default 1)\n";

namespace {

tier::CpuList from_bitmask(const struct bitmask* mask) {
  std::vector<unsigned> ids;
  if (mask == nullptr) return tier::CpuList(ids);
  for (unsigned i = 0; i < mask->size; ++i) {
    if (numa_bitmask_isbitset(mask, i) != 0) ids.push_back(i);
  }
  return tier::CpuList(ids);
}

Placement parse_placement(std::string_view flag, std::string_view value) {
  if (value == "bind") return Placement::bind;
  if (value == "bind-balancing") return Placement::bind_balancing;
  if (value == "first-touch") return Placement::first_touch;
  throw values::ValueError(std::string(flag), std::string(value),
                           value.empty()
                               ? "expected bind, bind-balancing or first-touch, got nothing"
                               : "expected bind, bind-balancing or first-touch");
}

}  // namespace

tier::CpuList machine_nodes() {
  if (numa_available() < 0) return tier::CpuList({0});
  return from_bitmask(numa_all_nodes_ptr);
}

tier::CpuList machine_cpus() {
  if (numa_available() < 0) return tier::CpuList({0});
  return from_bitmask(numa_all_cpus_ptr);
}

double parse_seconds(std::string_view flag, std::string_view value, long min_ms, long max_ms) {
  const auto d = values::parse_duration(flag, value, milliseconds(min_ms), milliseconds(max_ms),
                                        milliseconds(1000));
  return static_cast<double>(d.count()) / 1000.0;
}

bool parse_suite_flag(std::string_view flag, std::string_view value, SuiteOptions& o) {
  if (flag == "--node") {
    o.node = static_cast<int>(values::parse_id(flag, value, values::IdKind::node, machine_nodes()));
  } else if (flag == "--policy") {
    o.policy = parse_placement(flag, value);
  } else if (flag == "--cpus") {
    o.cpus = values::parse_id_list(flag, value, values::IdKind::cpu, machine_cpus());
  } else if (flag == "--threads") {
    o.threads = static_cast<unsigned>(values::parse_count(flag, value, 1, 256));
  } else if (flag == "--duration") {
    o.duration_s = parse_seconds(flag, value, 1, 86'400'000);
  } else if (flag == "--start-file" || flag == "--ready-file" || flag == "--report") {
    if (value.empty())
      throw values::ValueError(std::string(flag), "", "expected a file, got nothing");
    std::string& target =
        flag == "--start-file" ? o.start_file : (flag == "--ready-file" ? o.ready_file : o.report);
    target = std::string(value);
  } else if (flag == "--report-ms") {
    o.report_ms = static_cast<double>(values::parse_count(flag, value, 100, 60000));
  } else if (flag == "--seed") {
    o.seed = values::parse_count(flag, value, 0, UINT64_MAX);
  } else {
    return false;
  }
  return true;
}

}  // namespace tier_workloads
