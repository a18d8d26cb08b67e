// Residency scan: /proc/PID/smaps ranges → batched move_pages(NULL) queries
// (around the present pages only, for sparse mappings).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "present_pages.hpp"
#include "tier/memory/residency.hpp"

namespace tier {

namespace {

constexpr std::uint64_t kPmdSize = 2ull << 20;
constexpr std::size_t kPagesPerPmd = kPmdSize / kBasePageSize;

// Adds the statuses of consecutive addresses (one per `unit` bytes, starting at
// `first`) to a MappingResidency. THP detection needs every aligned 2 MiB
// group inside one call, which the scanner guarantees by cutting batches at
// 2 MiB boundaries.
class Accumulator {
 public:
  Accumulator(const Mapping& mapping, std::vector<ResidentPage>* pages)
      : pages_(pages),
        unit_(mapping.hugetlb() ? mapping.kernel_page_size : kBasePageSize),
        thp_budget_((mapping.anon_huge_bytes + mapping.file_pmd_bytes) / kPmdSize) {
    out_.mapping = mapping;
  }

  void add(std::uint64_t first, const int* statuses, std::size_t count) {
    std::size_t i = 0;
    while (i < count) {
      std::uint64_t address = first + i * unit_;
      int status = statuses[i];
      if (status < 0) {
        out_.not_resident_bytes += unit_;
        ++i;
        continue;
      }
      unsigned node = static_cast<unsigned>(status);
      NodeResidency& on_node = out_.nodes[node];
      if (unit_ > kBasePageSize) {  // hugetlb: one query per huge page
        on_node.bytes += unit_;
        on_node.huge_bytes += unit_;
        record(address, unit_, node);
        ++i;
        continue;
      }
      if (thp_budget_ > 0 && address % kPmdSize == 0 && i + kPagesPerPmd <= count &&
          std::all_of(statuses + i, statuses + i + kPagesPerPmd,
                      [status](int s) { return s == status; })) {
        --thp_budget_;
        on_node.bytes += kPmdSize;
        on_node.huge_bytes += kPmdSize;
        record(address, kPmdSize, node);
        i += kPagesPerPmd;
        continue;
      }
      on_node.bytes += kBasePageSize;
      on_node.pages_4k += 1;
      record(address, kBasePageSize, node);
      ++i;
    }
  }

  // Bytes of the mapping no query covered: its page tables hold nothing there.
  void add_not_present(std::uint64_t bytes) { out_.not_resident_bytes += bytes; }

  MappingResidency take() { return std::move(out_); }

 private:
  void record(std::uint64_t address, std::uint64_t size, unsigned node) {
    if (pages_ != nullptr) pages_->push_back(ResidentPage{address, size, node});
  }

  MappingResidency out_;
  std::vector<ResidentPage>* pages_;
  std::uint64_t unit_;
  std::uint64_t thp_budget_;
};

// A sparse mapping's per-node counts as the kernel's numa_maps walk found
// them; its pages are not listed one by one (when they were wanted, the
// warning says so and migrate prints it).
MappingResidency summarize_from_numa_maps(const Mapping& mapping,
                                          const std::map<std::uint64_t, NumaMapsEntry>& numa_maps,
                                          bool pages_wanted, ResidencyReport& report) {
  MappingResidency out;
  out.mapping = mapping;
  auto it = numa_maps.find(mapping.start);
  if (it == numa_maps.end()) return out;  // gone between the two reads
  for (const auto& [node, pages] : it->second.pages) {
    const std::uint64_t bytes = pages * it->second.page_size;
    NodeResidency& on_node = out.nodes[node];
    on_node.bytes += bytes;
    if (it->second.page_size > kBasePageSize) {
      on_node.huge_bytes += bytes;
    } else {
      on_node.pages_4k += pages;
    }
    NodeResidency& total = report.nodes[node];
    total.bytes += bytes;
    total.pages_4k += on_node.pages_4k;
    total.huge_bytes += on_node.huge_bytes;
  }
  char range[64];
  std::snprintf(range, sizeof range, "%llx-%llx", static_cast<unsigned long long>(mapping.start),
                static_cast<unsigned long long>(mapping.end));
  report.warnings.push_back(std::string("sparse mapping ") + range + " (" +
                            std::to_string(mapping.size() >> 30) + " GiB of address space, " +
                            std::to_string(mapping.rss_bytes.value_or(0) >> 20) +
                            " MiB resident) counted from numa_maps, not page by page" +
                            (pages_wanted ? std::string(": its pages are not listed (no "
                                                        "PAGEMAP_SCAN in this kernel and over 64 "
                                                        "GiB of address space); give a --range "
                                                        "inside it to list or move them")
                                          : std::string()));
  return out;
}

bool nothing_resident(const Mapping& mapping) {
  return mapping.rss_bytes.has_value() && *mapping.rss_bytes == 0 && mapping.hugetlb_bytes == 0;
}

}  // namespace

std::uint64_t ResidencyReport::resident_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [node, residency] : nodes) total += residency.bytes;
  return total;
}

MappingResidency summarize_mapping(const Mapping& mapping, const std::vector<int>& statuses,
                                   std::vector<ResidentPage>* pages) {
  Accumulator accumulator(mapping, pages);
  accumulator.add(mapping.start, statuses.data(), statuses.size());
  return accumulator.take();
}

namespace {

// Batch buffers reused across a scan's move_pages queries.
struct QueryBuffers {
  std::vector<void*> addresses;
  std::vector<int> statuses;
};

// Queries [begin, end) of one mapping, `unit` bytes per entry, in batches cut
// at 2 MiB boundaries so a THP never straddles two calls.
void query_span(MemorySyscalls& syscalls, int pid, std::uint64_t begin, std::uint64_t end,
                std::uint64_t unit, std::size_t batch, Accumulator& accumulator,
                ResidencyReport& report, QueryBuffers& buffers) {
  std::uint64_t address = begin;
  while (address < end) {
    std::uint64_t limit = address + batch * unit;
    if (unit == kBasePageSize && limit % kPmdSize != 0 && limit - address > kPmdSize) {
      limit -= limit % kPmdSize;
    }
    limit = std::min(limit, end);
    std::size_t count = static_cast<std::size_t>((limit - address + unit - 1) / unit);
    buffers.addresses.resize(count);
    buffers.statuses.assign(count, -ENOENT);
    for (std::size_t i = 0; i < count; ++i) {
      buffers.addresses[i] = reinterpret_cast<void*>(address + i * unit);
    }
    errno = 0;
    long rc = syscalls.move_pages(pid, count, buffers.addresses.data(), nullptr,
                                  buffers.statuses.data(), 0);
    ++report.syscalls;
    if (rc < 0) {
      int err = errno;
      throw ResidencyError(
          "move_pages(pid " + std::to_string(pid) + ", query): " + std::strerror(err), err);
    }
    report.queried_pages += count;
    accumulator.add(address, buffers.statuses.data(), count);
    address += count * unit;
  }
}

// The spans of [begin, end) worth querying. A dense mapping: all of it. A
// sparse one: only around its present pages, found from its page tables
// (present_pages.hpp); reading pagemap entries instead is allowed up to
// kMaxEntriesRead pages of range, or always when the caller named a range.
// nullopt: the present pages could not be found, so the caller falls back.
constexpr std::uint64_t kMaxEntriesRead = 16ull << 20;  // 64 GiB of range, 128 MiB of entries

std::optional<std::vector<AddressRun>> spans_to_query(const SysRoot& root, int pid,
                                                      const Mapping& mapping, std::uint64_t begin,
                                                      std::uint64_t end, std::uint64_t unit,
                                                      bool range_given, ResidencyReport& report) {
  if (!sparse_mapping(mapping)) return std::vector<AddressRun>{{begin, end}};
  const bool allow_read = range_given || (end - begin) / kBasePageSize <= kMaxEntriesRead;
  int error = 0;
  auto present = find_present_pages(root, pid, begin, end, allow_read, error);
  if (!present) return std::nullopt;
  ++report.page_table_scans;
  return widen_runs(present->runs, std::max(unit, kPmdSize), begin, end);
}

}  // namespace

ResidencyReport scan_residency(const SysRoot& root, MemorySyscalls& syscalls, int pid,
                               const ResidencyOptions& options) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::optional<std::vector<Mapping>> read = read_mappings(root, pid);
  if (!read && !root.exists(proc)) throw ResidencyError("no process " + std::to_string(pid), ESRCH);
  if (!read) throw ResidencyError("cannot read " + proc + "/maps", EACCES);
  std::vector<Mapping> mappings = std::move(*read);

  ResidencyReport report;
  report.pid = pid;
  const std::size_t batch = std::max<std::size_t>(options.batch_pages, kPagesPerPmd);
  QueryBuffers buffers;
  std::optional<std::map<std::uint64_t, NumaMapsEntry>> numa_maps;  // read when first needed
  // A sparse mapping's per-node totals from the kernel's own walk, when no
  // page list is wanted or its present pages cannot be found.
  auto from_numa_maps = [&](const Mapping& mapping) {
    if (!numa_maps) numa_maps = parse_numa_maps(root.read(proc + "/numa_maps").value_or(""));
    report.mappings.push_back(
        summarize_from_numa_maps(mapping, *numa_maps, options.keep_pages, report));
  };
  const bool want_pages = options.range || options.keep_pages;
  for (const Mapping& mapping : mappings) {
    if (skip_mapping(mapping) || nothing_resident(mapping)) continue;
    if (!want_pages && sparse_mapping(mapping)) {
      from_numa_maps(mapping);
      continue;
    }
    const std::uint64_t unit = mapping.hugetlb() ? mapping.kernel_page_size : kBasePageSize;
    std::uint64_t begin = mapping.start;
    std::uint64_t end = mapping.end;
    if (options.range) {
      begin = std::max(begin, options.range->first);
      end = std::min(end, options.range->second);
      if (begin >= end) continue;
      begin = mapping.start + (begin - mapping.start) / unit * unit;  // whole units
      end = std::min(mapping.end, (end + kBasePageSize - 1) / kBasePageSize * kBasePageSize);
    }
    auto spans =
        spans_to_query(root, pid, mapping, begin, end, unit, options.range.has_value(), report);
    if (!spans && !options.range) {
      from_numa_maps(mapping);
      continue;
    }
    if (!spans) spans = std::vector<AddressRun>{{begin, end}};  // page by page, as asked
    Accumulator accumulator(mapping, options.keep_pages ? &report.pages : nullptr);
    std::uint64_t queried_bytes = 0;
    for (const AddressRun& span : *spans) {
      query_span(syscalls, pid, span.start, span.end, unit, batch, accumulator, report, buffers);
      queried_bytes += span.end - span.start;
    }
    accumulator.add_not_present((end - begin) - queried_bytes);
    MappingResidency summary = accumulator.take();
    for (const auto& [node, residency] : summary.nodes) {
      NodeResidency& total = report.nodes[node];
      total.bytes += residency.bytes;
      total.pages_4k += residency.pages_4k;
      total.huge_bytes += residency.huge_bytes;
    }
    report.not_resident_bytes += summary.not_resident_bytes;
    report.mappings.push_back(std::move(summary));
  }
  return report;
}

std::map<unsigned, std::uint64_t> bytes_per_tier(const std::map<unsigned, NodeResidency>& nodes,
                                                 const Topology& topology,
                                                 std::vector<std::string>* warnings) {
  std::map<unsigned, std::uint64_t> out;
  for (const auto& [id, residency] : nodes) {
    const Node* node = topology.node(id);
    if (node == nullptr && warnings != nullptr) {
      warnings->push_back("node " + std::to_string(id) +
                          " holds pages but is not in the topology; counted in tier 0");
    }
    out[node != nullptr ? node->tier : 0] += residency.bytes;
  }
  return out;
}

}  // namespace tier
