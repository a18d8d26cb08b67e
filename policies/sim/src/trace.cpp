#include "tier/sim/trace.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <tuple>

#include "address_index.hpp"

namespace tier::sim {

std::uint64_t TraceWorkload::pages() const {
  std::uint64_t n = 0;
  for (const Mapping& m : mappings) n += m.pages;
  return n;
}

double Distribution::total() const {
  double sum = 0;
  for (const PageRun& r : runs) sum += r.p * static_cast<double>(r.count);
  return sum;
}

std::uint64_t Trace::allocated(std::size_t epoch, std::size_t workload) const {
  const TraceEpoch& e = epochs.at(epoch);
  return e.allocated.empty() ? workloads.at(workload).pages() : e.allocated.at(workload);
}

std::optional<std::size_t> Trace::workload_of_pid(std::uint32_t pid) const {
  for (std::size_t w = 0; w < workloads.size(); ++w) {
    if (workloads[w].pid == pid) return w;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> Trace::page_of(std::size_t workload, std::uint64_t addr) const {
  std::uint64_t first = 0;
  for (const Mapping& m : workloads.at(workload).mappings) {
    if (addr >= m.start && (addr - m.start) / page_bytes < m.pages) {
      return first + (addr - m.start) / page_bytes;
    }
    first += m.pages;
  }
  return std::nullopt;
}

std::uint64_t Trace::address_of(std::size_t workload, std::uint64_t page) const {
  for (const Mapping& m : workloads.at(workload).mappings) {
    if (page < m.pages) return m.start + page * page_bytes;
    page -= m.pages;
  }
  throw std::out_of_range("page beyond workload " + workloads.at(workload).id);
}

namespace {

[[noreturn]] void invalid(const std::string& what) {
  throw std::invalid_argument("invalid trace: " + what);
}

}  // namespace

void validate(const Trace& trace) {
  if (trace.page_bytes < 2 || (trace.page_bytes & (trace.page_bytes - 1)) != 0) {
    invalid("page size " + std::to_string(trace.page_bytes) + " is not a power of two");
  }
  if (!(trace.epoch_s > 0) || !std::isfinite(trace.epoch_s)) invalid("epoch_s must be > 0");
  std::set<std::uint32_t> pids;
  // (pid, start, end) of every mapping, to find overlaps within one process.
  std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>> spans;
  for (const TraceWorkload& w : trace.workloads) {
    if (w.id.empty()) invalid("a workload without an id");
    if (!pids.insert(w.pid).second) invalid("two workloads with pid " + std::to_string(w.pid));
    for (const Mapping& m : w.mappings) {
      if (m.start % trace.page_bytes != 0) invalid("mapping of " + w.id + " not page aligned");
      if (m.pages > (~std::uint64_t{0} - m.start) / trace.page_bytes) {
        invalid("mapping of " + w.id + " runs past the address space");
      }
      spans.emplace_back(w.pid, m.start, m.start + m.pages * trace.page_bytes);
    }
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) {
    if (std::get<0>(spans[i]) == std::get<0>(spans[i - 1]) &&
        std::get<1>(spans[i]) < std::get<2>(spans[i - 1])) {
      invalid("overlapping mappings in pid " + std::to_string(std::get<0>(spans[i])));
    }
  }
  for (std::size_t e = 0; e < trace.epochs.size(); ++e) {
    const TraceEpoch& epoch = trace.epochs[e];
    const std::string where = "epoch " + std::to_string(e) + ": ";
    if (!epoch.allocated.empty()) {
      if (epoch.allocated.size() != trace.workloads.size()) {
        invalid(where + "allocated lists " + std::to_string(epoch.allocated.size()) +
                " workloads, the trace has " + std::to_string(trace.workloads.size()));
      }
      for (std::size_t w = 0; w < trace.workloads.size(); ++w) {
        if (epoch.allocated[w] > trace.workloads[w].pages()) {
          invalid(where + "allocated beyond workload " + trace.workloads[w].id);
        }
        if (e > 0 && epoch.allocated[w] < trace.allocated(e - 1, w)) {
          invalid(where + "allocation of " + trace.workloads[w].id + " shrinks");
        }
      }
    }
    if (!epoch.truth) continue;
    const PageRun* previous = nullptr;
    for (const PageRun& r : epoch.truth->runs) {
      if (r.workload >= trace.workloads.size()) invalid(where + "truth names no workload");
      if (r.count == 0 || r.first + r.count < r.first ||
          r.first + r.count > trace.workloads[r.workload].pages()) {
        invalid(where + "truth run outside workload " + trace.workloads[r.workload].id);
      }
      if (!(r.p >= 0) || !std::isfinite(r.p)) invalid(where + "truth probability not >= 0");
      if (previous != nullptr &&
          std::tie(r.workload, r.first) < std::tie(previous->workload, previous->first)) {
        invalid(where + "truth runs not sorted");
      }
      if (previous != nullptr && r.workload == previous->workload &&
          r.first < previous->first + previous->count) {
        invalid(where + "truth runs overlap");
      }
      previous = &r;
    }
    if (std::abs(epoch.truth->total() - 1.0) > 1e-6) {
      invalid(where + "truth sums to " + std::to_string(epoch.truth->total()) + ", not 1");
    }
  }
}

Distribution empirical_distribution(const Trace& trace, const std::vector<TraceSample>& samples) {
  const detail::AddressIndex index(trace);
  struct Hit {
    std::uint32_t workload;
    std::uint64_t page;
    double weight;
  };
  std::vector<Hit> hits;
  double total = 0;
  for (const TraceSample& s : samples) {
    std::uint64_t pages = 0;
    index.for_each_piece(s.pid, s.addr, s.length,
                         [&](std::uint32_t, std::uint64_t, std::uint64_t n) { pages += n; });
    if (pages == 0 || s.count == 0) continue;
    const double each = static_cast<double>(s.count) / static_cast<double>(pages);
    index.for_each_piece(s.pid, s.addr, s.length,
                         [&](std::uint32_t w, std::uint64_t first, std::uint64_t n) {
                           for (std::uint64_t p = first; p < first + n; ++p) {
                             hits.push_back({w, p, each});
                           }
                         });
    total += static_cast<double>(s.count);
  }
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    return std::tie(a.workload, a.page) < std::tie(b.workload, b.page);
  });
  Distribution d;
  for (std::size_t i = 0; i < hits.size();) {
    double weight = 0;
    std::size_t j = i;
    for (; j < hits.size() && hits[j].workload == hits[i].workload && hits[j].page == hits[i].page;
         ++j) {
      weight += hits[j].weight;
    }
    const double p = weight / total;
    PageRun* last = d.runs.empty() ? nullptr : &d.runs.back();
    if (last != nullptr && last->workload == hits[i].workload &&
        last->first + last->count == hits[i].page && last->p == p) {
      ++last->count;
    } else {
      d.runs.push_back({hits[i].workload, hits[i].page, 1, p});
    }
    i = j;
  }
  return d;
}

}  // namespace tier::sim
