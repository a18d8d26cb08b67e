// The raw ACPI HMAT/SRAT parsers, on tables built here byte by byte in the
// layout of ACPI 6.3 (as QEMU emits them for the emulated 4-node machine).
#include "tier/topology/acpi_hmat.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tier::acpi {
namespace {

class TableBuilder {
 public:
  TableBuilder(const char* signature, std::uint8_t revision, std::size_t reserved_after_header) {
    bytes_.resize(36 + reserved_after_header, 0);
    std::memcpy(bytes_.data(), signature, 4);
    bytes_[8] = revision;
  }
  template <typename T>
  TableBuilder& put(T value) {
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    bytes_.insert(bytes_.end(), raw, raw + sizeof(T));
    return *this;
  }
  std::vector<std::uint8_t> finish() {
    auto length = static_cast<std::uint32_t>(bytes_.size());
    std::memcpy(bytes_.data() + 4, &length, 4);
    return bytes_;
  }

 private:
  std::vector<std::uint8_t> bytes_;
};

// One HMAT locality structure: initiators × targets entries of one data type.
void add_locality(TableBuilder& t, HmatDataType type, std::uint64_t base,
                  const std::vector<std::uint32_t>& initiators,
                  const std::vector<std::uint32_t>& targets,
                  const std::vector<std::uint16_t>& entries) {
  auto length = static_cast<std::uint32_t>(32 + 4 * initiators.size() + 4 * targets.size() +
                                           2 * entries.size());
  t.put<std::uint16_t>(1).put<std::uint16_t>(0).put<std::uint32_t>(length);
  t.put<std::uint8_t>(0).put<std::uint8_t>(static_cast<std::uint8_t>(type)).put<std::uint16_t>(0);
  t.put<std::uint32_t>(static_cast<std::uint32_t>(initiators.size()))
      .put<std::uint32_t>(static_cast<std::uint32_t>(targets.size()))
      .put<std::uint32_t>(0)
      .put<std::uint64_t>(base);
  for (auto i : initiators) t.put<std::uint32_t>(i);
  for (auto x : targets) t.put<std::uint32_t>(x);
  for (auto e : entries) t.put<std::uint16_t>(e);
}

std::vector<std::uint8_t> qemu_hmat() {
  TableBuilder t("HMAT", 2, 4);
  // Latency in ps with base 1000 → entries are ns. 0: 80/140/250/350, 1: 140/80/350/250.
  add_locality(t, HmatDataType::access_latency, 1000, {0, 1}, {0, 1, 2, 3},
               {80, 140, 250, 350, 140, 80, 350, 250});
  // Bandwidth in MB/s, base 1024: 20, 10, 8, 5 GiB/s; 0xFFFF = unknown.
  add_locality(t, HmatDataType::access_bandwidth, 1024, {0, 1}, {0, 1, 2, 3},
               {20, 10, 8, 5, 10, 20, 0xffff, 8});
  return t.finish();
}

void add_cpu(TableBuilder& t, std::uint32_t pxm, bool enabled) {
  t.put<std::uint8_t>(0).put<std::uint8_t>(16).put<std::uint8_t>(pxm & 0xff).put<std::uint8_t>(0);
  t.put<std::uint32_t>(enabled ? 1 : 0).put<std::uint8_t>(0);
  t.put<std::uint8_t>((pxm >> 8) & 0xff)
      .put<std::uint8_t>((pxm >> 16) & 0xff)
      .put<std::uint8_t>(pxm >> 24);
  t.put<std::uint32_t>(0);
}

void add_memory(TableBuilder& t, std::uint32_t pxm, bool enabled) {
  t.put<std::uint8_t>(1).put<std::uint8_t>(40).put<std::uint32_t>(pxm).put<std::uint16_t>(0);
  t.put<std::uint64_t>(0).put<std::uint64_t>(1 << 30).put<std::uint32_t>(0);
  t.put<std::uint32_t>(enabled ? 1 : 0).put<std::uint64_t>(0);
}

TEST(AcpiHmat, ParsesLatencyAndBandwidthMatrices) {
  auto figures = parse_hmat(qemu_hmat());
  ASSERT_TRUE(figures);
  // 8 latencies + 7 bandwidths (one entry unknown).
  ASSERT_EQ(figures->size(), 15u);
  auto find = [&](std::uint32_t i, std::uint32_t t, HmatDataType type) -> std::uint64_t {
    for (const auto& f : *figures) {
      if (f.initiator_pxm == i && f.target_pxm == t && f.type == type) return f.value;
    }
    return 0;
  };
  EXPECT_EQ(find(0, 3, HmatDataType::access_latency), 350u);  // far memory-only node
  EXPECT_EQ(find(1, 0, HmatDataType::access_latency), 140u);  // remote DRAM
  EXPECT_EQ(find(1, 3, HmatDataType::access_bandwidth), 8192u);
  EXPECT_EQ(find(1, 2, HmatDataType::access_bandwidth), 0u);  // 0xFFFF: omitted
}

TEST(AcpiHmat, RevisionOneLatencyIsInTenthsOfNanoseconds) {
  TableBuilder t("HMAT", 1, 4);
  add_locality(t, HmatDataType::read_latency, 1, {0}, {0}, {805});
  auto figures = parse_hmat(t.finish());
  ASSERT_TRUE(figures);
  ASSERT_EQ(figures->size(), 1u);
  EXPECT_EQ((*figures)[0].value, 81u);  // rounded up, as the kernel does
}

TEST(AcpiHmat, RejectsMalformedTables) {
  auto good = qemu_hmat();
  EXPECT_FALSE(parse_hmat(std::vector<std::uint8_t>(good.begin(), good.begin() + 20)));
  auto wrong_signature = good;
  wrong_signature[0] = 'X';
  EXPECT_FALSE(parse_hmat(wrong_signature));
  auto truncated = good;
  truncated.resize(good.size() - 10);  // header length now exceeds the bytes
  EXPECT_FALSE(parse_hmat(truncated));
  auto bad_structure = good;
  bad_structure[40 + 4] = 2;  // first structure claims a length below its header
  bad_structure[40 + 5] = 0;
  EXPECT_FALSE(parse_hmat(bad_structure));
}

TEST(AcpiSrat, NumbersNodesLikeLinuxInitiatorsFirst) {
  TableBuilder t("SRAT", 3, 12);
  // Memory entries come first in the table, but Linux maps CPU PXMs first.
  add_memory(t, 7, true);
  add_memory(t, 9, true);
  add_memory(t, 4, false);  // disabled: never gets a node
  add_cpu(t, 9, true);
  add_cpu(t, 9, true);
  add_cpu(t, 0x010002, true);  // PXM split across lo/hi bytes
  add_cpu(t, 5, false);
  add_memory(t, 0x010002, true);
  auto map = parse_srat_node_map(t.finish());
  ASSERT_TRUE(map);
  EXPECT_EQ(*map, (std::map<std::uint32_t, unsigned>{{9, 0}, {0x010002, 1}, {7, 2}}));
}

TEST(AcpiSrat, RejectsMalformedTables) {
  TableBuilder t("SRAT", 3, 12);
  t.put<std::uint8_t>(1).put<std::uint8_t>(1);  // entry length below its own header
  EXPECT_FALSE(parse_srat_node_map(t.finish()));
  EXPECT_FALSE(parse_srat_node_map(std::vector<std::uint8_t>{'S', 'R', 'A', 'T'}));
}

}  // namespace
}  // namespace tier::acpi
