// What a suite workload says about its run, the same way for every program,
// so the head-to-head (tests/vm/lib/h2h_report.py) reads one format:
//   stdout   the ready line (JSON, once the data is placed), then the final
//            line (below)
//   --report one JSON line per interval, appended and flushed so a reader
//            sees every finished line:
//              {"t":2.0,"ops":51234,"ops_per_s":51234.0,"p50_us":8.1,"p99_us":31.0}
//            (t: seconds since the measured part began, at the interval's
//            end; latency only for workloads with requests), then the final
//            line again.
//   final    {"final":true,"workload":"gups","unit":"updates","ops":N,
//             "seconds":S,"ops_per_s":R,["p50_us","p99_us","p999_us",]
//             "verified":V,"verified_unit":"words","bad":B, ...extra}
//            bad counts data found wrong at exit; the program exits 1 then.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <cstdio>
#include <string>

#include "latency_histogram.hpp"

namespace tier_workloads {

class Report {
 public:
  /// `path` empty: no interval file (the final line still goes to stdout).
  /// Throws std::runtime_error when the file cannot be created.
  Report(const std::string& path, std::string workload, std::string unit);
  ~Report();
  Report(const Report&) = delete;
  Report& operator=(const Report&) = delete;

  /// One interval: `ops` done in the `seconds` ending at `t_s`; `latency`
  /// the interval's requests (nullptr: none).
  void interval(double t_s, std::uint64_t ops, double seconds, const LatencyHistogram* latency);

  struct Final {
    std::uint64_t ops = 0;
    double seconds = 0;
    const LatencyHistogram* latency = nullptr;  // the whole run's
    std::uint64_t verified = 0;
    std::string verified_unit;
    std::uint64_t bad = 0;
    boost::json::object extra;  // workload-specific members, appended
  };
  /// The final line, to stdout and the file.
  void final(const Final& f);

 private:
  std::FILE* file_ = nullptr;
  std::string workload_, unit_;
};

/// Adds p50/p99/p999 in µs (and the request count) of `h` to `out`.
void add_latency(boost::json::object& out, const LatencyHistogram& h);

}  // namespace tier_workloads
