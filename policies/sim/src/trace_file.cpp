#include "tier/sim/trace_file.hpp"

#include <charconv>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tier::sim {

namespace {

constexpr std::string_view kMagic = "tier-trace 1";

std::string format_double(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string hex(std::uint64_t value) {
  char buffer[32] = {'0', 'x'};
  const auto result = std::to_chars(buffer + 2, buffer + sizeof buffer, value, 16);
  return std::string(buffer, result.ptr);
}

bool has_space(const std::string& text) {
  return text.empty() || text.find_first_of(" \t\r\n") != std::string::npos;
}

}  // namespace

TraceWriter::TraceWriter(std::ostream& out, const Trace& header) : out_(out) {
  out_ << kMagic << "\npage_bytes " << header.page_bytes << "\nepoch_s "
       << format_double(header.epoch_s) << "\n";
  if (!header.description.empty()) {
    if (header.description.find('\n') != std::string::npos) {
      throw std::invalid_argument("trace description spans lines");
    }
    out_ << "description " << header.description << "\n";
  }
  for (std::size_t w = 0; w < header.workloads.size(); ++w) {
    const TraceWorkload& workload = header.workloads[w];
    if (has_space(workload.id)) {
      throw std::invalid_argument("workload id must be a single word: '" + workload.id + "'");
    }
    out_ << "workload " << workload.id << ' ' << workload.pid << ' '
         << to_string(workload.workload_class) << ' ' << workload.priority << "\n";
    for (const Mapping& m : workload.mappings) {
      out_ << "map " << w << ' ' << hex(m.start) << ' ' << m.pages << "\n";
    }
  }
}

void TraceWriter::epoch(const TraceEpoch& epoch) {
  out_ << "epoch " << index_++ << "\n";
  if (!epoch.allocated.empty()) {
    out_ << "alloc";
    for (std::uint64_t pages : epoch.allocated) out_ << ' ' << pages;
    out_ << "\n";
  }
  if (epoch.truth && epoch.truth == previous_truth_) {
    out_ << "truth same\n";
  } else if (epoch.truth) {
    for (const PageRun& r : epoch.truth->runs) {
      out_ << "t " << r.workload << ' ' << r.first << ' ' << r.count << ' ' << format_double(r.p)
           << "\n";
    }
  }
  previous_truth_ = epoch.truth;
  for (const TraceSample& s : epoch.samples) {
    out_ << "s " << s.pid << ' ' << hex(s.addr) << ' ' << s.count;
    if (s.length != 0) out_ << ' ' << s.length;
    out_ << "\n";
  }
}

void write_trace(std::ostream& out, const Trace& trace) {
  TraceWriter writer(out, trace);
  for (const TraceEpoch& epoch : trace.epochs) writer.epoch(epoch);
  out.flush();
  if (!out) throw std::runtime_error("writing the trace failed");
}

void write_trace(const std::filesystem::path& path, const Trace& trace) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  write_trace(out, trace);
}

namespace {

class LineParser {
 public:
  LineParser(std::string_view line, std::size_t number) : rest_(line), number_(number) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw TraceFormatError("trace line " + std::to_string(number_) + ": " + what);
  }

  std::string_view word() {
    const std::size_t start = rest_.find_first_not_of(" \t\r");
    if (start == std::string_view::npos) {
      rest_ = {};
      return {};
    }
    rest_.remove_prefix(start);
    const std::size_t end = std::min(rest_.find_first_of(" \t\r"), rest_.size());
    std::string_view w = rest_.substr(0, end);
    rest_.remove_prefix(end);
    return w;
  }

  bool done() {
    const std::size_t start = rest_.find_first_not_of(" \t\r");
    return start == std::string_view::npos;
  }

  std::string_view rest() {
    const std::size_t start = rest_.find_first_not_of(" \t");
    std::string_view r = start == std::string_view::npos ? std::string_view{} : rest_.substr(start);
    while (!r.empty() && r.back() == '\r') r.remove_suffix(1);
    return r;
  }

  template <typename T>
  T number(const char* what) {
    std::string_view w = word();
    int base = 10;
    if constexpr (std::is_integral_v<T>) {
      if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
        w.remove_prefix(2);
        base = 16;
      }
    }
    T value{};
    std::from_chars_result result{};
    if constexpr (std::is_integral_v<T>) {
      result = std::from_chars(w.data(), w.data() + w.size(), value, base);
    } else {
      result = std::from_chars(w.data(), w.data() + w.size(), value);
    }
    if (w.empty() || result.ec != std::errc() || result.ptr != w.data() + w.size()) {
      fail(std::string("expected ") + what + ", got '" + std::string(w) + "'");
    }
    return value;
  }

  void end() {
    if (!done()) fail("unexpected '" + std::string(word()) + "'");
  }

 private:
  std::string_view rest_;
  std::size_t number_;
};

}  // namespace

Trace read_trace(std::istream& in) {
  Trace trace;
  std::string line;
  std::size_t number = 0;
  bool magic = false;
  TraceEpoch* epoch = nullptr;
  std::shared_ptr<Distribution> building;  // truth runs of the current epoch
  std::shared_ptr<const Distribution> previous;
  const auto finish_epoch = [&] {
    if (epoch != nullptr && building) epoch->truth = std::move(building);
    building.reset();
    if (epoch != nullptr) previous = epoch->truth;
  };
  while (std::getline(in, line)) {
    ++number;
    LineParser p(line, number);
    if (p.done() || p.rest().front() == '#') continue;
    const std::string_view key = p.word();
    if (!magic) {
      if (key != "tier-trace" || p.word() != "1" || !p.done()) {
        p.fail("not a tier trace (expected '" + std::string(kMagic) + "')");
      }
      magic = true;
      continue;
    }
    if (key == "s") {
      if (epoch == nullptr) p.fail("sample before the first epoch");
      TraceSample s;
      s.pid = p.number<std::uint32_t>("a pid");
      s.addr = p.number<std::uint64_t>("an address");
      s.count = p.number<std::uint32_t>("a count");
      if (!p.done()) s.length = p.number<std::uint64_t>("a length");
      p.end();
      epoch->samples.push_back(s);
    } else if (key == "t") {
      if (epoch == nullptr) p.fail("truth before the first epoch");
      if (epoch->truth) p.fail("truth runs after 'truth same'");
      if (!building) building = std::make_shared<Distribution>();
      PageRun r;
      r.workload = p.number<std::uint32_t>("a workload index");
      r.first = p.number<std::uint64_t>("a first page");
      r.count = p.number<std::uint64_t>("a page count");
      r.p = p.number<double>("a probability");
      p.end();
      building->runs.push_back(r);
    } else if (key == "epoch") {
      finish_epoch();
      const auto index = p.number<std::size_t>("an epoch index");
      p.end();
      if (index != trace.epochs.size()) p.fail("epochs out of order");
      epoch = &trace.epochs.emplace_back();
    } else if (key == "truth") {
      if (epoch == nullptr) p.fail("truth before the first epoch");
      if (p.word() != "same") p.fail("expected 'truth same'");
      p.end();
      if (!previous) p.fail("'truth same' without a previous truth");
      if (building) p.fail("'truth same' after truth runs");
      epoch->truth = previous;
    } else if (key == "alloc") {
      if (epoch == nullptr) p.fail("alloc before the first epoch");
      while (!p.done()) epoch->allocated.push_back(p.number<std::uint64_t>("a page count"));
    } else if (epoch != nullptr) {
      p.fail("'" + std::string(key) + "' after the first epoch");
    } else if (key == "page_bytes") {
      trace.page_bytes = p.number<std::uint64_t>("a page size");
      p.end();
    } else if (key == "epoch_s") {
      trace.epoch_s = p.number<double>("seconds");
      p.end();
    } else if (key == "description") {
      trace.description = std::string(p.rest());
    } else if (key == "workload") {
      TraceWorkload w;
      w.id = std::string(p.word());
      w.pid = p.number<std::uint32_t>("a pid");
      const std::string_view word = p.word();
      if (word.empty()) p.fail("expected a workload class");
      const std::optional<WorkloadClass> workload_class = parse_workload_class(word);
      if (!workload_class) {
        p.fail("expected a workload class (online, offline or default), got '" + std::string(word) +
               "'");
      }
      w.workload_class = *workload_class;
      w.priority = p.number<int>("a priority");
      p.end();
      trace.workloads.push_back(std::move(w));
    } else if (key == "map") {
      const auto w = p.number<std::size_t>("a workload index");
      if (w >= trace.workloads.size()) p.fail("map of an undeclared workload");
      Mapping m;
      m.start = p.number<std::uint64_t>("a start address");
      m.pages = p.number<std::uint64_t>("a page count");
      p.end();
      trace.workloads[w].mappings.push_back(m);
    } else {
      p.fail("unknown key '" + std::string(key) + "'");
    }
  }
  if (!magic) throw TraceFormatError("empty trace file (expected '" + std::string(kMagic) + "')");
  finish_epoch();
  validate(trace);
  return trace;
}

Trace read_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read trace " + path.string());
  return read_trace(in);
}

}  // namespace tier::sim
