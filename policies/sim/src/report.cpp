#include "tier/sim/report.hpp"

#include <cstdio>
#include <ostream>
#include <string>

namespace tier::sim {

namespace {

/// value with `decimals` digits after the point, right-aligned in `width`.
std::string fixed(double value, int decimals, int width = 0) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%*.*f", width, decimals, value);
  return buffer;
}

std::string bytes(std::uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(n);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char buffer[64];
  if (unit == 0) {
    std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(n));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, units[unit]);
  }
  return buffer;
}

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

}  // namespace

void print_epochs(std::ostream& out, const std::vector<EpochReport>& epochs, std::size_t every) {
  out << pad("EPOCH", 6) << pad("FAST%", 8) << pad("ORACLE%", 9) << pad("LAT_NS", 8)
      << pad("MIGRATED", 12) << pad("PINGPONG", 10) << pad("FAILED", 8) << pad("DROPPED", 9)
      << pad("REGIONS", 9) << "\n";
  if (every == 0) every = 1;
  for (std::size_t i = 0; i < epochs.size(); ++i) {
    if ((i + 1) % every != 0 && i + 1 != epochs.size()) continue;
    const EpochReport& r = epochs[i];
    out << pad(std::to_string(r.epoch), 6) << pad(fixed(100 * r.fast_share, 1), 8)
        << pad(fixed(100 * r.oracle_share, 1), 9) << pad(fixed(r.mean_latency_ns, 0), 8)
        << pad(bytes(r.bytes_migrated), 12) << pad(std::to_string(r.ping_pong_pages), 10)
        << pad(std::to_string(r.failed_moves), 8) << pad(std::to_string(r.dropped_moves), 9)
        << pad(std::to_string(r.regions), 9) << "\n";
  }
}

void print_summary(std::ostream& out, const Summary& s) {
  out << "summary over " << s.epochs << " epochs\n";
  for (const Checkpoint& c : s.checkpoints) {
    out << "  after " << pad(std::to_string(c.epochs), 3) << " epochs: fast "
        << fixed(100 * c.fast_share, 1, 5) << "%"
        << "  oracle " << fixed(100 * c.oracle_share, 1, 5) << "%"
        << "  (" << fixed(c.oracle_share > 0 ? 100 * c.fast_share / c.oracle_share : 0, 0) << "%"
        << " of oracle)  latency " << fixed(c.mean_latency_ns, 0) << " ns\n";
  }
  out << "  mean fast share " << fixed(100 * s.mean_fast_share, 1) << "%"
      << " (oracle " << fixed(100 * s.mean_oracle_share, 1) << "%"
      << "), mean latency " << fixed(s.mean_latency_ns, 1) << " ns"
      << (s.scored_epochs < s.epochs
              ? " over the " + std::to_string(s.scored_epochs) + " of " + std::to_string(s.epochs) +
                    " epochs with accesses to score"
              : std::string())
      << "\n"
      << "  migrated " << bytes(s.bytes_migrated) << " (" << s.pages_migrated << " pages, "
      << s.moves_planned << " moves planned), ping-pong " << s.ping_pong_pages << " pages\n"
      << "  failed " << s.failed_moves << " moves (" << bytes(s.failed_bytes)
      << "), dropped by budget " << s.dropped_moves << " moves (" << bytes(s.dropped_bytes)
      << ")\n";
}

boost::json::object to_json(const EpochReport& r) {
  return {{"epoch", r.epoch},
          {"now_s", r.now_s},
          {"samples", r.samples},
          {"unmapped_samples", r.unmapped_samples},
          {"regions", r.regions},
          {"moves_planned", r.moves_planned},
          {"failed_moves", r.failed_moves},
          {"dropped_moves", r.dropped_moves},
          {"pages_migrated", r.pages_migrated},
          {"bytes_migrated", r.bytes_migrated},
          {"failed_bytes", r.failed_bytes},
          {"dropped_bytes", r.dropped_bytes},
          {"ping_pong_pages", r.ping_pong_pages},
          {"scored", r.scored},
          {"fast_share", r.fast_share},
          {"oracle_share", r.oracle_share},
          {"mean_latency_ns", r.mean_latency_ns},
          {"fast_used_bytes", r.fast_used_bytes}};
}

boost::json::object to_json(const Summary& s) {
  boost::json::array checkpoints;
  for (const Checkpoint& c : s.checkpoints) {
    checkpoints.push_back({{"epochs", c.epochs},
                           {"fast_share", c.fast_share},
                           {"oracle_share", c.oracle_share},
                           {"mean_latency_ns", c.mean_latency_ns}});
  }
  return {{"epochs", s.epochs},
          {"scored_epochs", s.scored_epochs},
          {"checkpoints", std::move(checkpoints)},
          {"mean_fast_share", s.mean_fast_share},
          {"mean_oracle_share", s.mean_oracle_share},
          {"mean_latency_ns", s.mean_latency_ns},
          {"final_fast_share", s.final_fast_share},
          {"final_oracle_share", s.final_oracle_share},
          {"pages_migrated", s.pages_migrated},
          {"bytes_migrated", s.bytes_migrated},
          {"ping_pong_pages", s.ping_pong_pages},
          {"moves_planned", s.moves_planned},
          {"failed_moves", s.failed_moves},
          {"dropped_moves", s.dropped_moves},
          {"failed_bytes", s.failed_bytes},
          {"dropped_bytes", s.dropped_bytes}};
}

boost::json::object to_json(const SimResult& result) {
  boost::json::array epochs;
  for (const EpochReport& r : result.epochs) epochs.push_back(to_json(r));
  return {{"epochs", std::move(epochs)}, {"summary", to_json(result.summary)}};
}

}  // namespace tier::sim
