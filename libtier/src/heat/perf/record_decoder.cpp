// PERF_RECORD_* decoding (see perf_records.hpp for the field order). Reads go
// through a bounds-checked cursor: a short record is reported as malformed,
// never read past.
#include <linux/perf_event.h>

#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tier/heat/perf_records.hpp"

namespace tier::heat::perf {

namespace {

// Little cursor over one record; ok() turns false on the first short read.
class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  template <typename T>
  T take() {
    T value{};
    if (!skip_check(sizeof(T))) return value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  void skip(std::size_t n) {
    if (skip_check(n)) pos_ += n;
  }
  bool ok() const { return ok_; }

 private:
  bool skip_check(std::size_t n) {
    if (!ok_ || n > bytes_.size() - pos_) {
      ok_ = false;
      return false;
    }
    return true;
  }
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

constexpr std::uint64_t kUnsizable =
    PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;

void read_weight(Cursor& in, PerfSample& s) {
  if (s.has(PERF_SAMPLE_WEIGHT_STRUCT)) {
    // Little-endian layout: var1_dw, var2_w, var3_w (x86 is little-endian).
    s.weight_var1 = in.take<std::uint32_t>();
    s.weight_var2 = in.take<std::uint16_t>();
    s.weight_var3 = in.take<std::uint16_t>();
    s.weight = s.weight_var1;
  } else if (s.has(PERF_SAMPLE_WEIGHT)) {
    s.weight = in.take<std::uint64_t>();
    s.weight_var1 = static_cast<std::uint32_t>(s.weight);
  }
}

// Fields up to PERIOD have fixed sizes; then the variable-size blocks the
// constructor allowed (CALLCHAIN, RAW, STACK_USER, AUX) are skipped.
void read_sample_fields(Cursor& in, PerfSample& s) {
  if (s.has(PERF_SAMPLE_IDENTIFIER)) s.identifier = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_IP)) s.ip = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_TID)) {
    s.pid = in.take<std::uint32_t>();
    s.tid = in.take<std::uint32_t>();
  }
  if (s.has(PERF_SAMPLE_TIME)) s.time = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_ADDR)) s.addr = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_ID)) s.id = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_STREAM_ID)) s.stream_id = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_CPU)) {
    s.cpu = in.take<std::uint32_t>();
    in.take<std::uint32_t>();  // res
  }
  if (s.has(PERF_SAMPLE_PERIOD)) s.period = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_CALLCHAIN)) in.skip(in.take<std::uint64_t>() * sizeof(std::uint64_t));
  if (s.has(PERF_SAMPLE_RAW)) {
    // u32 size, then size bytes; the kernel pads size so the whole stays u64-aligned.
    s.raw_size = in.take<std::uint32_t>();
    in.skip(s.raw_size);
  }
  if (s.has(PERF_SAMPLE_STACK_USER)) {
    std::uint64_t size = in.take<std::uint64_t>();
    in.skip(size);
    if (size != 0) in.take<std::uint64_t>();  // dyn_size
  }
  read_weight(in, s);
  if (s.has(PERF_SAMPLE_DATA_SRC)) {
    s.data_src_raw = in.take<std::uint64_t>();
    s.data_src = decode_data_src(s.data_src_raw);
  }
  if (s.has(PERF_SAMPLE_TRANSACTION)) s.transaction = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_PHYS_ADDR)) s.phys_addr = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_CGROUP)) s.cgroup = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_DATA_PAGE_SIZE)) s.data_page_size = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_CODE_PAGE_SIZE)) s.code_page_size = in.take<std::uint64_t>();
  if (s.has(PERF_SAMPLE_AUX)) in.skip(in.take<std::uint64_t>());
}

}  // namespace

PerfRecordDecoder::PerfRecordDecoder(std::uint64_t sample_type) : sample_type_(sample_type) {
  if (std::uint64_t refused = sample_type & kUnsizable; refused != 0) {
    char hex[20];
    auto end = std::to_chars(hex, hex + sizeof hex, refused, 16).ptr;
    throw std::invalid_argument("perf sample_type bits 0x" + std::string(hex, end) +
                                " (READ, BRANCH_STACK, REGS_USER, REGS_INTR) have sizes that "
                                "depend on other attr fields: not decodable");
  }
}

std::optional<PerfSample> PerfRecordDecoder::decode(std::span<const std::uint8_t> record) {
  Cursor in(record);
  auto header = in.take<perf_event_header>();
  if (!in.ok() || header.size < sizeof(perf_event_header) || header.size > record.size()) {
    ++counts_.malformed;
    return std::nullopt;
  }
  Cursor body(record.subspan(sizeof(perf_event_header), header.size - sizeof(perf_event_header)));
  switch (header.type) {
    case PERF_RECORD_SAMPLE: {
      PerfSample s;
      s.sample_type = sample_type_;
      s.misc = header.misc;
      read_sample_fields(body, s);
      if (!body.ok()) {
        ++counts_.malformed;
        return std::nullopt;
      }
      ++counts_.samples;
      return s;
    }
    case PERF_RECORD_LOST: {
      body.take<std::uint64_t>();  // id
      std::uint64_t lost = body.take<std::uint64_t>();
      if (!body.ok()) break;
      ++counts_.lost_records;
      counts_.lost += lost;
      return std::nullopt;
    }
    case PERF_RECORD_LOST_SAMPLES: {
      std::uint64_t lost = body.take<std::uint64_t>();
      if (!body.ok()) break;
      counts_.lost_samples += lost;
      return std::nullopt;
    }
    case PERF_RECORD_THROTTLE:
      ++counts_.throttles;
      return std::nullopt;
    case PERF_RECORD_UNTHROTTLE:
      ++counts_.unthrottles;
      return std::nullopt;
    default:
      ++counts_.other;
      return std::nullopt;
  }
  ++counts_.malformed;
  return std::nullopt;
}

std::vector<PerfSample> decode_stream(PerfRecordDecoder& decoder,
                                      std::span<const std::uint8_t> stream) {
  std::vector<PerfSample> samples;
  std::size_t pos = 0;
  while (stream.size() - pos >= sizeof(perf_event_header)) {
    perf_event_header header;
    std::memcpy(&header, stream.data() + pos, sizeof header);
    if (header.size < sizeof header || header.size % sizeof(std::uint64_t) != 0 ||
        header.size > stream.size() - pos) {
      decoder.decode({});  // counts the unframeable rest as one malformed record
      break;
    }
    if (auto sample = decoder.decode(stream.subspan(pos, header.size))) {
      samples.push_back(*sample);
    }
    pos += header.size;
  }
  return samples;
}

}  // namespace tier::heat::perf
