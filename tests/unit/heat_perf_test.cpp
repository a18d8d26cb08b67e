// The perf record decoder and ring reader against recorded streams
// (tests/fixtures/perf/, written by make_perf_streams.py from the documented
// record layout): every sample's address, pid/tid/cpu, latency and data
// source, the drop and throttle counts, and rings whose unread records wrap
// past the end of the data area.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <boost/json.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "tier/heat/perf_records.hpp"
#include "tier/heat/perf_ring.hpp"
#include "tier/heat/perf_samples.hpp"

namespace tier::heat::perf {
namespace {

namespace json = boost::json;

const std::string kDir = std::string(TIER_FIXTURES) + "/perf/";

std::vector<std::uint8_t> fixture_bytes(const std::string& name) {
  std::string text = tier::test::read_text_file(kDir + name + ".bin");
  return {text.begin(), text.end()};
}

json::object expected(const std::string& name) {
  return json::parse(tier::test::read_text_file(kDir + name + ".json")).as_object();
}

std::uint64_t u64(const json::object& o, const char* key) {
  return json::value_to<std::uint64_t>(o.at(key));
}

std::string tlb_text(const MemTlb& tlb) {
  if (!tlb.known) return "unknown";
  std::string s = describe(MemDataSource{.tlb = tlb});
  return s.substr(s.find("tlb=") + 4);
}

// Every field the generator wrote for a sample, against the decoder's view.
void expect_sample(const PerfSample& got, const json::object& want, SampleOrigin origin) {
  SCOPED_TRACE(json::serialize(want));
  EXPECT_EQ(got.addr, u64(want, "addr"));
  EXPECT_EQ(got.pid, u64(want, "pid"));
  EXPECT_EQ(got.tid, u64(want, "tid"));
  EXPECT_EQ(got.cpu, u64(want, "cpu"));
  EXPECT_EQ(got.time, u64(want, "time"));
  if (want.contains("ip")) {
    EXPECT_EQ(got.ip, u64(want, "ip"));
  }
  if (want.contains("period")) {
    EXPECT_EQ(got.period, u64(want, "period"));
  }
  if (want.contains("phys_addr")) {
    EXPECT_EQ(got.phys_addr, u64(want, "phys_addr"));
  }
  if (want.contains("latency")) {
    EXPECT_EQ(got.weight_var1, u64(want, "latency"));
  }
  if (want.contains("var2")) {
    EXPECT_EQ(got.weight_var2, u64(want, "var2"));
  }
  if (want.contains("data_src")) {
    const MemDataSource& src = got.data_src;
    EXPECT_EQ(got.data_src_raw, u64(want, "data_src"));
    EXPECT_EQ(to_string(src.op), want.at("op").as_string());
    EXPECT_EQ(to_string(src.level), want.at("level").as_string());
    EXPECT_EQ(src.hit, want.at("hit").as_bool());
    EXPECT_EQ(src.miss, want.at("miss").as_bool());
    EXPECT_EQ(src.remote, want.at("remote").as_bool());
    EXPECT_EQ(src.hops, u64(want, "hops"));
    EXPECT_EQ(to_string(src.snoop), want.at("snoop").as_string());
    EXPECT_EQ(tlb_text(src.tlb), want.at("tlb").as_string());
  }
  auto access = to_access_sample(got, origin);
  if (want.at("kind").is_null()) {
    EXPECT_FALSE(access.has_value()) << "an op without a memory access is no evidence";
    return;
  }
  ASSERT_TRUE(access.has_value());
  EXPECT_EQ(access->addr, got.addr);
  EXPECT_EQ(access->pid, got.pid);
  EXPECT_EQ(access->tid, got.tid);
  EXPECT_EQ(access->cpu, static_cast<std::int32_t>(got.cpu));
  EXPECT_EQ(access->time_ns, got.time);
  EXPECT_EQ(to_string(access->kind), want.at("kind").as_string());
  if (want.contains("latency")) {
    EXPECT_EQ(access->latency, u64(want, "latency"));
  }
}

void expect_counts(const PerfRecordCounts& got, const json::object& want) {
  EXPECT_EQ(got.samples, u64(want, "samples"));
  EXPECT_EQ(got.lost_records, u64(want, "lost_records"));
  EXPECT_EQ(got.lost, u64(want, "lost"));
  EXPECT_EQ(got.lost_samples, u64(want, "lost_samples"));
  EXPECT_EQ(got.throttles, u64(want, "throttles"));
  EXPECT_EQ(got.unthrottles, u64(want, "unthrottles"));
  EXPECT_EQ(got.malformed, u64(want, "malformed"));
  EXPECT_EQ(got.drops(), u64(want, "drops"));
}

struct StreamCase {
  const char* name;
  SampleOrigin origin;
};

void PrintTo(const StreamCase& c, std::ostream* os) {
  *os << c.name;
}

class RecordedStream : public ::testing::TestWithParam<StreamCase> {};

TEST_P(RecordedStream, DecodesEverySampleAndCount) {
  const StreamCase& param = GetParam();
  json::object want = expected(param.name);
  std::vector<std::uint8_t> bytes = fixture_bytes(param.name);
  PerfRecordDecoder decoder(u64(want, "sample_type"));

  std::vector<PerfSample> samples = decode_stream(decoder, bytes);

  const json::array& rows = want.at("samples").as_array();
  ASSERT_EQ(samples.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    expect_sample(samples[i], rows[i].as_object(), param.origin);
  }
  expect_counts(decoder.counts(), want.at("counts").as_object());
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, RecordedStream,
    ::testing::Values(StreamCase{"pebs_load_latency", SampleOrigin::precise_pmu},
                      StreamCase{"ibs_op", SampleOrigin::precise_pmu},
                      StreamCase{"sw_fault_lost", SampleOrigin::software_fault}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

// Spot checks written out by hand, so a generator mistake cannot hide behind
// a matching expectation file.
TEST(RecordedStream, PebsLevelsAndLatenciesByHand) {
  std::vector<std::uint8_t> bytes = fixture_bytes("pebs_load_latency");
  PerfRecordDecoder decoder(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                            PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
                            PERF_SAMPLE_PHYS_ADDR);
  auto samples = decode_stream(decoder, bytes);
  ASSERT_EQ(samples.size(), 7u);
  EXPECT_EQ(samples[0].data_src.level, MemLevel::l1);
  EXPECT_EQ(samples[0].weight, 5u);
  EXPECT_EQ(samples[2].data_src.level, MemLevel::local_ram);
  EXPECT_EQ(samples[3].data_src.level, MemLevel::remote_ram);
  EXPECT_TRUE(samples[3].data_src.remote);
  EXPECT_EQ(samples[3].weight, 380u);
  EXPECT_EQ(samples[4].data_src.level, MemLevel::cxl);
  EXPECT_EQ(samples[4].addr, 0x7f3a12004140u);
  EXPECT_EQ(samples[5].data_src.level, MemLevel::pmem);
  EXPECT_EQ(samples[6].data_src.op, MemOp::store);
  EXPECT_EQ(decoder.counts().lost_samples, 3u);
  EXPECT_EQ(decoder.counts().throttles, 1u);
}

TEST(RecordDecoder, RefusesSampleTypesItCannotSize) {
  for (std::uint64_t bit :
       {PERF_SAMPLE_READ, PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_USER, PERF_SAMPLE_REGS_INTR}) {
    EXPECT_THROW(PerfRecordDecoder{PERF_SAMPLE_ADDR | bit}, std::invalid_argument) << bit;
  }
}

TEST(RecordDecoder, ShortSampleIsMalformedNotOverread) {
  std::vector<std::uint8_t> bytes = fixture_bytes("sw_fault_lost");
  PerfRecordDecoder decoder(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                            PERF_SAMPLE_CPU);
  // The first record claims 16 bytes: a header and one u64, too short for TID..CPU.
  perf_event_header header;
  std::memcpy(&header, bytes.data(), sizeof header);
  header.size = 16;
  std::memcpy(bytes.data(), &header, sizeof header);
  EXPECT_FALSE(decoder.decode(std::span(bytes).first(16)).has_value());
  EXPECT_EQ(decoder.counts().malformed, 1u);
  EXPECT_EQ(decoder.counts().samples, 0u);
}

TEST(RecordDecoder, StreamWithBrokenFramingStopsAndCounts) {
  std::vector<std::uint8_t> bytes = fixture_bytes("sw_fault_lost");
  bytes.resize(bytes.size() - 8);  // the last sample now runs past the end
  PerfRecordDecoder decoder(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                            PERF_SAMPLE_CPU);
  auto samples = decode_stream(decoder, bytes);
  EXPECT_EQ(samples.size(), 5u);
  EXPECT_EQ(decoder.counts().malformed, 1u);
  EXPECT_EQ(decoder.counts().lost, 22u);
}

TEST(DataSource, LegacyLevelBitsWithoutLevelNumber) {
  // Older kernels fill mem_lvl only: remote DRAM (1 hop), hit.
  std::uint64_t raw = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, REM_RAM1) | PERF_MEM_S(LVL, HIT);
  MemDataSource src = decode_data_src(raw);
  EXPECT_EQ(src.op, MemOp::load);
  EXPECT_EQ(src.level, MemLevel::remote_ram);
  EXPECT_TRUE(src.remote);
  EXPECT_TRUE(src.hit);
  EXPECT_EQ(describe(src), "load remote_ram hit remote");
}

// A ring laid out like the kernel's mapping: metadata page, then data area.
class FixtureRing : public ::testing::TestWithParam<const char*> {};

TEST_P(FixtureRing, RecordsWrappingTheEndAreCopiedOutWhole) {
  json::object want = expected(GetParam());
  std::vector<std::uint8_t> area = fixture_bytes(GetParam());
  ASSERT_EQ(area.size(), u64(want, "data_size"));
  perf_event_mmap_page meta{};
  meta.data_tail = u64(want, "data_tail");
  meta.data_head = u64(want, "data_head");
  PerfRingReader reader(&meta, area.data(), area.size());
  PerfRecordDecoder decoder(u64(want, "sample_type"));
  std::vector<PerfSample> samples;

  std::size_t records = reader.drain([&](std::span<const std::uint8_t> record) {
    if (auto s = decoder.decode(record)) samples.push_back(*s);
  });

  const json::array& rows = want.at("samples").as_array();
  EXPECT_EQ(records, rows.size());
  ASSERT_EQ(samples.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    expect_sample(samples[i], rows[i].as_object(), SampleOrigin::software_fault);
  }
  EXPECT_EQ(meta.data_tail, meta.data_head) << "everything read is released to the kernel";
  EXPECT_EQ(reader.corrupt(), 0u);
  // A second drain finds nothing new.
  EXPECT_EQ(reader.drain([](std::span<const std::uint8_t>) {}), 0u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureRing,
                         ::testing::Values("ring_wrap_mid_record", "ring_wrap_mid_header"));

// The kernel publishes data_head only after whole records (perf_output_end),
// so a record running past data_head means the ring cannot be trusted.
TEST(PerfRing, RecordPastHeadIsCorruptAndSkipped) {
  json::object want = expected("ring_wrap_mid_record");
  std::vector<std::uint8_t> area = fixture_bytes("ring_wrap_mid_record");
  perf_event_mmap_page meta{};
  meta.data_tail = u64(want, "data_tail");
  meta.data_head = u64(want, "data_head") - 20;  // cuts the fifth 40-byte record in half
  PerfRingReader reader(&meta, area.data(), area.size());
  EXPECT_EQ(reader.drain([](std::span<const std::uint8_t>) {}), 4u);
  EXPECT_EQ(reader.corrupt(), 1u);
  EXPECT_EQ(meta.data_tail, meta.data_head);
}

TEST(PerfRing, CorruptHeaderResynchronisesAtHead) {
  std::vector<std::uint8_t> area(256, 0);  // a zero header: size 0 cannot be a record
  perf_event_mmap_page meta{};
  meta.data_tail = 0;
  meta.data_head = 64;
  PerfRingReader reader(&meta, area.data(), area.size());
  EXPECT_EQ(reader.drain([](std::span<const std::uint8_t>) {}), 0u);
  EXPECT_EQ(reader.corrupt(), 1u);
  EXPECT_EQ(meta.data_tail, 64u);
}

}  // namespace
}  // namespace tier::heat::perf
