// The trace recorder behind `tierctl heat --record` (contract in heat_recorder.hpp).
#include "heat_recorder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <system_error>

#include "tier/memory/residency.hpp"
#include "tier/sim/trace_file.hpp"

namespace tierctl {

namespace {

constexpr std::uint64_t kPageBytes = 4096;

// strerror's text, which the recorder's messages have always carried (not
// tier::posix::errno_text's "ENOSPC (...)"); a stream may fail with errno 0.
std::string stream_error_text(int error) {
  return error != 0 ? std::strerror(error) : "write failed";
}

}  // namespace

std::vector<tier::heat::AddressRange> recordable_ranges(const tier::SysRoot& root, int pid) {
  std::vector<tier::heat::AddressRange> ranges;
  for (const tier::Mapping& m : tier::placeable_mappings(root, pid)) {
    ranges.push_back({m.start, m.end});
  }
  return ranges;
}

std::string process_command_line(const tier::SysRoot& root, int pid) {
  auto text = root.read("/proc/" + std::to_string(pid) + "/cmdline");
  if (!text) return "";
  std::string out = *text;
  while (!out.empty() && out.back() == '\0') out.pop_back();
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

TraceRecorder::TraceRecorder(std::filesystem::path path, const RecordHeader& header)
    : path_(std::move(path)), pid_(static_cast<std::uint32_t>(header.pid)) {
  summary_.file = path_.string();
  tier::sim::Trace trace;
  trace.page_bytes = kPageBytes;
  trace.epoch_s = std::chrono::duration<double>(header.interval).count();
  trace.description = "recorded by tierctl heat: source " + header.source + ", pid " +
                      std::to_string(header.pid) + ", command '" + header.command + "', " +
                      header.date;
  tier::sim::TraceWorkload workload;
  workload.id = "pid:" + std::to_string(header.pid);
  workload.pid = pid_;
  for (const auto& m : header.mappings) {
    if (m.end <= m.start) continue;
    workload.mappings.push_back({m.start, (m.end - m.start + kPageBytes - 1) / kPageBytes});
    mappings_.push_back(m);
  }
  trace.workloads.push_back(std::move(workload));

  errno = 0;
  out_.open(path_, std::ios::out | std::ios::trunc);
  if (!out_) {
    throw RecordError("cannot write trace file " + path_.string() + ": " +
                      stream_error_text(errno));
  }
  writer_ = std::make_unique<tier::sim::TraceWriter>(out_, trace);
  out_.flush();
  if (!out_) {
    const int error = errno;
    discard();
    throw RecordError("cannot write trace file " + path_.string() + ": " +
                      stream_error_text(error));
  }
}

TraceRecorder::~TraceRecorder() = default;

void TraceRecorder::fail(const std::string& what) noexcept {
  if (summary_.error.empty()) summary_.error = what;
}

void TraceRecorder::add(const std::vector<tier::heat::AccessSample>& samples,
                        std::uint64_t epoch) noexcept {
  if (!summary_.error.empty()) return;
  try {
    if (current_ && epoch > current_->index) {
      if (previous_) write(*previous_);
      previous_ = std::move(current_);
      current_.reset();
    }
    if (!current_) {
      current_.emplace();
      current_->index = previous_ ? std::max(epoch, previous_->index + 1) : epoch;
    }
    for (const auto& s : samples) {
      const std::uint64_t end = s.addr + std::max<std::uint64_t>(s.length, 1);
      // The first mapping ending past addr is the only one that can overlap.
      auto it = std::upper_bound(mappings_.begin(), mappings_.end(), s.addr,
                                 [](std::uint64_t a, const auto& m) { return a < m.end; });
      if (it == mappings_.end() || it->start >= end) {
        ++summary_.outside_mappings;
        continue;
      }
      const std::uint64_t addr = s.length == 0 ? s.addr & ~(kPageBytes - 1) : s.addr;
      current_->counts[{addr, s.length}] += s.weight;
      ++current_->samples;
    }
  } catch (const std::exception& e) {
    fail("cannot write trace file " + path_.string() + ": " + e.what());
  }
}

// Writes `epoch` as the trace's next epoch, after empty ones for any index
// the collector skipped (it never does; kept exact anyway).
void TraceRecorder::write(const Epoch& epoch) {
  while (summary_.error.empty() && summary_.epochs < epoch.index) {
    Epoch skipped;
    skipped.index = summary_.epochs;
    write(skipped);
  }
  if (!summary_.error.empty()) return;
  tier::sim::TraceEpoch out;
  for (const auto& [key, total] : epoch.counts) {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
    for (std::uint64_t left = total; left > 0;) {
      const auto count = static_cast<std::uint32_t>(std::min(left, kMax));
      out.samples.push_back({key.first, key.second, pid_, count});
      left -= count;
    }
  }
  errno = 0;
  writer_->epoch(out);
  out_.flush();
  if (!out_) {
    fail("cannot write trace file " + path_.string() + ": " + stream_error_text(errno));
    return;
  }
  ++summary_.epochs;
  summary_.samples += epoch.samples;
  summary_.lines += out.samples.size();
}

RecordSummary TraceRecorder::finish(std::uint64_t completed_epochs, std::string_view note) {
  if (!out_.is_open()) return summary_;
  try {
    if (current_ && current_->index >= completed_epochs && previous_) {
      // Cut short by the end of the run: fold it into the epoch before.
      for (const auto& [key, count] : current_->counts) previous_->counts[key] += count;
      previous_->samples += current_->samples;
      current_.reset();
    }
    if (current_ && current_->index >= completed_epochs && current_->samples == 0) current_.reset();
    if (previous_ && summary_.error.empty()) write(*previous_);
    if (current_ && summary_.error.empty()) write(*current_);
    previous_.reset();
    current_.reset();
    if (summary_.error.empty()) {
      if (!note.empty()) out_ << "# " << note << "\n";
      out_ << "# " << summary_.outside_mappings
           << " samples outside the declared mappings left out (mapped after the recording "
              "started: new mappings, stack growth)\n";
      errno = 0;
      out_.flush();
      if (!out_)
        fail("cannot write trace file " + path_.string() + ": " + stream_error_text(errno));
    }
  } catch (const std::exception& e) {
    fail("cannot write trace file " + path_.string() + ": " + e.what());
  }
  out_.close();
  if (summary_.error.empty() && out_.fail()) {
    fail("cannot write trace file " + path_.string() + ": close failed");
  }
  return summary_;
}

void TraceRecorder::discard() noexcept {
  if (out_.is_open()) out_.close();
  // Only a file this recorder wrote: never a device (/dev/full), FIFO or symlink.
  std::error_code ec;
  if (std::filesystem::symlink_status(path_, ec).type() == std::filesystem::file_type::regular) {
    std::filesystem::remove(path_, ec);
  }
}

}  // namespace tierctl
