// Pure parts of the bench: size scanning, matrix assembly, JSON and text.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <boost/json.hpp>

#include "tier/bench/bench.hpp"
#include "tier/values/value_scan.h"

namespace tier::bench {

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t bytes = 0;
  if (tier_scan_size(text.data(), text.data() + text.size(), &bytes) != 0) return std::nullopt;
  return bytes;
}

Matrix assemble_matrix(const std::vector<unsigned>& initiators,
                       const std::vector<unsigned>& targets, const std::vector<PairResult>& pairs,
                       const std::function<std::optional<double>(const PairResult&)>& figure) {
  Matrix matrix(initiators.size(), std::vector<std::optional<double>>(targets.size()));
  for (const auto& pair : pairs) {
    auto row = std::find(initiators.begin(), initiators.end(), pair.initiator);
    auto col = std::find(targets.begin(), targets.end(), pair.target);
    if (row == initiators.end() || col == targets.end()) continue;
    matrix[static_cast<std::size_t>(row - initiators.begin())]
          [static_cast<std::size_t>(col - targets.begin())] = figure(pair);
  }
  return matrix;
}

Matrix hmat_matrix(const Topology& topology, const std::vector<unsigned>& initiators,
                   const std::vector<unsigned>& targets, HmatFigure figure) {
  Matrix matrix(initiators.size(), std::vector<std::optional<double>>(targets.size()));
  for (std::size_t r = 0; r < initiators.size(); ++r) {
    for (std::size_t c = 0; c < targets.size(); ++c) {
      const NodePerf* perf = topology.perf_for(initiators[r], targets[c]);
      if (perf == nullptr) continue;
      std::optional<std::uint64_t> value;
      switch (figure) {
        case HmatFigure::read_latency:
          value = perf->read_latency_ns;
          break;
        case HmatFigure::write_latency:
          value = perf->write_latency_ns;
          break;
        case HmatFigure::read_bandwidth:
          value = perf->read_bandwidth_mbps;
          break;
        case HmatFigure::write_bandwidth:
          value = perf->write_bandwidth_mbps;
          break;
      }
      if (value) matrix[r][c] = static_cast<double>(*value);
    }
  }
  return matrix;
}

namespace {

// To 0.01, as the double nearest that two-decimal number: the division by
// 100 is correctly rounded, so the JSON reads 90.96 (multiplying the
// hundredths by 0.01 gave 90.96000000000001).
double hundredths(double value) {
  return std::round(value * 100) / 100;
}

// What a matrix's cells are, so the JSON says so: measured figures are
// decimals (to 0.01), HMAT's figures, sizes and thread counts integers,
// huge_pages a yes or no. A Matrix holds them all as doubles for the table.
enum class Cell { decimal, integer, boolean };

boost::json::value cell_json(double value, Cell cell) {
  switch (cell) {
    case Cell::integer:
      return static_cast<std::uint64_t>(std::llround(value));
    case Cell::boolean:
      return value != 0;
    case Cell::decimal:
      break;
  }
  return hundredths(value);
}

boost::json::array to_json(const Matrix& matrix, Cell cell = Cell::decimal) {
  boost::json::array rows;
  for (const auto& row : matrix) {
    boost::json::array cells;
    for (const auto& value : row) {
      cells.push_back(value ? cell_json(*value, cell) : boost::json::value(nullptr));
    }
    rows.emplace_back(std::move(cells));
  }
  return rows;
}

template <class T>
boost::json::array to_json_array(const std::vector<T>& values) {
  boost::json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

Matrix figure_matrix(const BenchReport& report,
                     const std::function<std::optional<double>(const PairResult&)>& figure) {
  return assemble_matrix(report.initiators, report.targets, report.pairs, figure);
}

}  // namespace

boost::json::value to_json(const BenchReport& report, const Topology& topology) {
  boost::json::object doc;
  doc["initiators"] = to_json_array(report.initiators);
  doc["targets"] = to_json_array(report.targets);
  doc["latency_ns"] =
      to_json(figure_matrix(report, [](const PairResult& p) { return p.latency_ns; }));
  boost::json::object bandwidth;
  bandwidth["read"] =
      to_json(figure_matrix(report, [](const PairResult& p) { return p.read_mbps; }));
  bandwidth["write"] =
      to_json(figure_matrix(report, [](const PairResult& p) { return p.write_mbps; }));
  bandwidth["copy"] =
      to_json(figure_matrix(report, [](const PairResult& p) { return p.copy_mbps; }));
  doc["bandwidth_mbps"] = std::move(bandwidth);
  doc["bandwidth_unit"] = "MB/s = 10^6 bytes/s; copy counts bytes copied once";

  boost::json::object hmat;
  const auto& in = report.initiators;
  const auto& out = report.targets;
  const auto hmat_json = [&](HmatFigure figure) {
    return to_json(hmat_matrix(topology, in, out, figure), Cell::integer);
  };
  hmat["read_latency_ns"] = hmat_json(HmatFigure::read_latency);
  hmat["write_latency_ns"] = hmat_json(HmatFigure::write_latency);
  hmat["read_bandwidth_mbps"] = hmat_json(HmatFigure::read_bandwidth);
  hmat["write_bandwidth_mbps"] = hmat_json(HmatFigure::write_bandwidth);
  doc["hmat"] = std::move(hmat);

  // Scalars summarise; per_pair has the exact figure when pairs differ (a
  // default size capped by a small node's free memory, per-node thread counts).
  std::uint64_t size = 0;
  int threads = 0;
  bool huge = !report.pairs.empty();
  for (const auto& p : report.pairs) {
    size = size == 0 ? p.size_bytes : std::min(size, p.size_bytes);
    threads = threads == 0 ? p.threads : std::min(threads, p.threads);
    huge = huge && p.huge_pages;
  }
  doc["size_bytes"] = size;
  doc["threads"] = threads;
  doc["huge_pages"] = huge;
  doc["repeat"] = report.repeat;
  boost::json::array warnings;
  for (const std::string& warning : report.warnings) warnings.emplace_back(warning);
  doc["warnings"] = std::move(warnings);
  boost::json::object per_pair;
  per_pair["size_bytes"] = to_json(
      figure_matrix(report, [](const PairResult& p) { return static_cast<double>(p.size_bytes); }),
      Cell::integer);
  per_pair["threads"] = to_json(
      figure_matrix(report, [](const PairResult& p) { return static_cast<double>(p.threads); }),
      Cell::integer);
  per_pair["huge_pages"] =
      to_json(figure_matrix(report, [](const PairResult& p) { return p.huge_pages ? 1.0 : 0.0; }),
              Cell::boolean);
  per_pair["on_target"] =
      to_json(figure_matrix(report, [](const PairResult& p) { return p.on_target; }));
  doc["per_pair"] = std::move(per_pair);

  boost::json::array loaded;
  for (const auto& p : report.pairs) {
    if (p.loaded.empty()) continue;
    boost::json::array points;
    for (const auto& point : p.loaded) {
      boost::json::object o;
      if (point.delay) {
        o["delay"] = *point.delay;
      } else {
        o["delay"] = nullptr;
      }
      o["bandwidth_mbps"] = hundredths(point.bandwidth_mbps);
      o["latency_ns"] = hundredths(point.latency_ns);
      points.emplace_back(std::move(o));
    }
    loaded.emplace_back(boost::json::object{
        {"initiator", p.initiator}, {"target", p.target}, {"points", std::move(points)}});
  }
  if (!loaded.empty()) doc["loaded"] = std::move(loaded);
  return doc;
}

namespace {

std::string cell_text(const std::optional<double>& measured, const std::optional<double>& hmat,
                      int precision) {
  std::ostringstream out;
  if (measured) {
    out << std::fixed << std::setprecision(precision) << *measured;
  } else {
    out << "-";
  }
  out << " [";
  if (hmat) {
    out << std::fixed << std::setprecision(0) << *hmat;
  } else {
    out << "-";
  }
  out << "]";
  return out.str();
}

void render_matrix(std::ostream& out, const std::string& title, const BenchReport& report,
                   const Matrix& measured, const Matrix& hmat, int precision) {
  out << title << "\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"INIT\\TARGET"};
  for (unsigned t : report.targets) header.push_back(std::to_string(t));
  rows.push_back(header);
  for (std::size_t r = 0; r < report.initiators.size(); ++r) {
    std::vector<std::string> row{std::to_string(report.initiators[r])};
    for (std::size_t c = 0; c < report.targets.size(); ++c) {
      row.push_back(cell_text(measured[r][c], hmat[r][c], precision));
    }
    rows.push_back(row);
  }
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    out << "  " << std::left << std::setw(static_cast<int>(widths[0])) << row[0];
    for (std::size_t c = 1; c < row.size(); ++c) {
      out << "  " << std::right << std::setw(static_cast<int>(widths[c])) << row[c];
    }
    out << "\n";
  }
  out << "\n";
}

}  // namespace

std::string render_text(const BenchReport& report, const Topology& topology) {
  std::ostringstream out;
  const auto doc = to_json(report, topology).as_object();
  out << "tierctl bench: " << doc.at("size_bytes").as_uint64() / (1u << 20) << " MiB buffer, "
      << doc.at("threads").as_int64() << " bandwidth thread(s), huge pages "
      << (doc.at("huge_pages").as_bool() ? "yes" : "no") << ", median of " << report.repeat
      << " round(s)\n"
      << "Rows: initiator (CPU) node, columns: target (memory) node. MB/s = 10^6 bytes/s.\n"
      << "In [brackets]: the HMAT figure `tierctl topo` shows for the pair, - = none.\n\n";
  const auto& in = report.initiators;
  const auto& tg = report.targets;
  render_matrix(out, "Idle latency, ns per load [HMAT read latency ns]:", report,
                figure_matrix(report, [](const PairResult& p) { return p.latency_ns; }),
                hmat_matrix(topology, in, tg, HmatFigure::read_latency), 1);
  render_matrix(out, "Read bandwidth, MB/s [HMAT read bandwidth MB/s]:", report,
                figure_matrix(report, [](const PairResult& p) { return p.read_mbps; }),
                hmat_matrix(topology, in, tg, HmatFigure::read_bandwidth), 0);
  render_matrix(out, "Write bandwidth, MB/s [HMAT write bandwidth MB/s]:", report,
                figure_matrix(report, [](const PairResult& p) { return p.write_mbps; }),
                hmat_matrix(topology, in, tg, HmatFigure::write_bandwidth), 0);
  render_matrix(out, "Copy bandwidth, MB/s copied [HMAT read bandwidth MB/s]:", report,
                figure_matrix(report, [](const PairResult& p) { return p.copy_mbps; }),
                hmat_matrix(topology, in, tg, HmatFigure::read_bandwidth), 0);
  for (const auto& p : report.pairs) {
    if (p.loaded.empty()) continue;
    out << "Loaded latency, node " << p.initiator << " -> node " << p.target << " ("
        << std::max(p.threads - 1, 0) << " load thread(s)):\n"
        << "  " << std::left << std::setw(8) << "DELAY" << std::right << std::setw(14)
        << "LOAD-MB/S" << std::setw(14) << "LATENCY-NS"
        << "\n";
    for (const auto& point : p.loaded) {
      out << "  " << std::left << std::setw(8)
          << (point.delay ? std::to_string(*point.delay) : std::string("idle")) << std::right
          << std::fixed << std::setprecision(0) << std::setw(14) << point.bandwidth_mbps
          << std::setprecision(1) << std::setw(14) << point.latency_ns << "\n";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace tier::bench
