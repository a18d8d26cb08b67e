// Address → (workload, page) lookup over a trace's mappings, by binary search
// (a recorded trace may list hundreds of mappings and millions of samples).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "tier/sim/trace.hpp"

namespace tier::sim::detail {

class AddressIndex {
 public:
  explicit AddressIndex(const Trace& trace) : page_bytes_(trace.page_bytes) {
    for (std::size_t w = 0; w < trace.workloads.size(); ++w) {
      std::uint64_t first = 0;
      for (const Mapping& m : trace.workloads[w].mappings) {
        entries_.push_back({trace.workloads[w].pid, m.start, m.start + m.pages * page_bytes_,
                            static_cast<std::uint32_t>(w), first});
        first += m.pages;
      }
    }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      return a.pid != b.pid ? a.pid < b.pid : a.start < b.start;
    });
  }

  struct Hit {
    std::uint32_t workload;
    std::uint64_t page;
  };

  std::optional<Hit> find(std::uint32_t pid, std::uint64_t addr) const {
    // The last mapping of pid starting at or below addr.
    auto it =
        std::upper_bound(entries_.begin(), entries_.end(), std::pair{pid, addr},
                         [](const std::pair<std::uint32_t, std::uint64_t>& key, const Entry& e) {
                           return key.first != e.pid ? key.first < e.pid : key.second < e.start;
                         });
    if (it == entries_.begin()) return std::nullopt;
    --it;
    if (it->pid != pid || addr >= it->end) return std::nullopt;
    return Hit{it->workload, it->first_page + (addr - it->start) / page_bytes_};
  }

  /// Calls f(workload, page, pages) for each maximal piece of [addr, addr+len)
  /// inside one mapping (len 0 = the page holding addr).
  template <typename F>
  void for_each_piece(std::uint32_t pid, std::uint64_t addr, std::uint64_t len, F f) const {
    if (len == 0) {
      if (auto hit = find(pid, addr)) f(hit->workload, hit->page, std::uint64_t{1});
      return;
    }
    const std::uint64_t end = addr + len < addr ? ~std::uint64_t{0} : addr + len;
    for (const Entry& e : entries_) {
      if (e.pid != pid || e.end <= addr || e.start >= end) continue;
      const std::uint64_t lo = std::max(addr, e.start);
      const std::uint64_t hi = std::min(end, e.end);
      const std::uint64_t first = (lo - e.start) / page_bytes_;
      const std::uint64_t last = (hi - 1 - e.start) / page_bytes_;
      f(e.workload, e.first_page + first, last - first + 1);
    }
  }

 private:
  struct Entry {
    std::uint32_t pid;
    std::uint64_t start, end;
    std::uint32_t workload;
    std::uint64_t first_page;
  };
  std::uint64_t page_bytes_;
  std::vector<Entry> entries_;
};

}  // namespace tier::sim::detail
