// Decoder of perf_event ring records: PERF_RECORD_SAMPLE laid out for a given
// attr.sample_type, plus the bookkeeping records (LOST, LOST_SAMPLES,
// THROTTLE, UNTHROTTLE).
//
// Contract: pure - bytes in, records out - so recorded streams and live rings
// go through the same code. Each decode() call takes exactly one record (its
// perf_event_header first, header.size bytes). Sample fields follow the order
// the kernel writes them (kernel/events/core.c perf_output_sample()):
//   IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD READ CALLCHAIN RAW
//   BRANCH_STACK REGS_USER STACK_USER WEIGHT|WEIGHT_STRUCT DATA_SRC
//   TRANSACTION REGS_INTR PHYS_ADDR CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE AUX
// (the uapi header's comment puts AUX before the page sizes; the code does
// not). Variable-size fields whose size depends on other attr fields (READ,
// BRANCH_STACK, REGS_USER, REGS_INTR) are refused at construction rather than
// guessed. A record that is too short for its sample_type is counted as
// malformed, never read past its end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tier/heat/perf_data_src.hpp"

namespace tier::heat::perf {

/// One PERF_RECORD_SAMPLE. Only the fields selected by sample_type are set.
struct PerfSample {
  std::uint64_t sample_type = 0;
  std::uint16_t misc = 0;  // header.misc (PERF_RECORD_MISC_USER/KERNEL, EXACT_IP)
  std::uint64_t identifier = 0;
  std::uint64_t ip = 0;
  std::uint32_t pid = 0, tid = 0;
  std::uint64_t time = 0;
  std::uint64_t addr = 0;
  std::uint64_t id = 0;
  std::uint64_t stream_id = 0;
  std::uint32_t cpu = 0;
  std::uint64_t period = 0;
  std::uint32_t raw_size = 0;     // PERF_SAMPLE_RAW payload size (payload skipped)
  std::uint64_t weight = 0;       // PERF_SAMPLE_WEIGHT: the full 64-bit weight
  std::uint32_t weight_var1 = 0;  // WEIGHT_STRUCT var1_dw (load latency); WEIGHT: low 32 bits
  std::uint16_t weight_var2 =
      0;  // WEIGHT_STRUCT var2_w (Intel: instruction latency; IBS: tag-to-retire)
  std::uint16_t weight_var3 = 0;  // WEIGHT_STRUCT var3_w (unused by PEBS and IBS today)
  std::uint64_t data_src_raw = 0;
  MemDataSource data_src;
  std::uint64_t transaction = 0;
  std::uint64_t phys_addr = 0;
  std::uint64_t cgroup = 0;
  std::uint64_t data_page_size = 0;
  std::uint64_t code_page_size = 0;

  bool has(std::uint64_t sample_bit) const { return (sample_type & sample_bit) != 0; }
};

/// Cumulative counts of what the decoder saw besides samples.
struct PerfRecordCounts {
  std::uint64_t samples = 0;
  std::uint64_t lost_records = 0;  // PERF_RECORD_LOST records
  std::uint64_t lost = 0;          // samples they say were lost (ring full)
  std::uint64_t lost_samples = 0;  // PERF_RECORD_LOST_SAMPLES (PMU-side drops, e.g. PEBS)
  std::uint64_t throttles = 0;     // PERF_RECORD_THROTTLE (kernel cut the sample rate)
  std::uint64_t unthrottles = 0;
  std::uint64_t other = 0;      // records of other types, skipped
  std::uint64_t malformed = 0;  // records shorter than their layout

  std::uint64_t drops() const { return lost + lost_samples; }
};

class PerfRecordDecoder {
 public:
  /// Throws std::invalid_argument for sample_type bits whose size cannot be
  /// known from sample_type alone (READ, BRANCH_STACK, REGS_USER, REGS_INTR).
  explicit PerfRecordDecoder(std::uint64_t sample_type);

  /// Decodes one record; returns the sample for PERF_RECORD_SAMPLE, nullopt
  /// for everything else (counted in counts()).
  std::optional<PerfSample> decode(std::span<const std::uint8_t> record);

  std::uint64_t sample_type() const { return sample_type_; }
  const PerfRecordCounts& counts() const { return counts_; }

 private:
  std::uint64_t sample_type_;
  PerfRecordCounts counts_;
};

/// Decodes a linear stream of records (a recorded ring's contents, in order).
/// A header whose size is 0, unaligned or runs past the end stops the walk and
/// counts as malformed: the rest cannot be framed.
std::vector<PerfSample> decode_stream(PerfRecordDecoder& decoder,
                                      std::span<const std::uint8_t> stream);

}  // namespace tier::heat::perf
