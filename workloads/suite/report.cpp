#include "report.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "tier/json/json_text.hpp"

namespace tier_workloads {

Report::Report(const std::string& path, std::string workload, std::string unit)
    : workload_(std::move(workload)), unit_(std::move(unit)) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) throw std::runtime_error("--report " + path + ": " + std::strerror(errno));
}

Report::~Report() {
  if (file_ != nullptr) std::fclose(file_);
}

void add_latency(boost::json::object& out, const LatencyHistogram& h) {
  out["requests"] = h.count();
  out["p50_us"] = static_cast<double>(h.quantile_ns(0.50)) / 1000.0;
  out["p99_us"] = static_cast<double>(h.quantile_ns(0.99)) / 1000.0;
  out["p999_us"] = static_cast<double>(h.quantile_ns(0.999)) / 1000.0;
}

void Report::interval(double t_s, std::uint64_t ops, double seconds,
                      const LatencyHistogram* latency) {
  if (file_ == nullptr) return;
  boost::json::object line;
  line["t"] = t_s;
  line["ops"] = ops;
  line["ops_per_s"] = seconds > 0 ? static_cast<double>(ops) / seconds : 0.0;
  if (latency != nullptr && latency->count() > 0) add_latency(line, *latency);
  std::fprintf(file_, "%s\n", tier::json_text(line).c_str());
  std::fflush(file_);
}

void Report::final(const Final& f) {
  boost::json::object line;
  line["final"] = true;
  line["workload"] = workload_;
  line["unit"] = unit_;
  line["ops"] = f.ops;
  line["seconds"] = f.seconds;
  line["ops_per_s"] = f.seconds > 0 ? static_cast<double>(f.ops) / f.seconds : 0.0;
  if (f.latency != nullptr) add_latency(line, *f.latency);
  line["verified"] = f.verified;
  line["verified_unit"] = f.verified_unit;
  line["bad"] = f.bad;
  for (const auto& member : f.extra) line[member.key()] = member.value();
  const std::string text = tier::json_text(line);
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
  if (file_ != nullptr) {
    std::fprintf(file_, "%s\n", text.c_str());
    std::fflush(file_);
  }
}

}  // namespace tier_workloads
