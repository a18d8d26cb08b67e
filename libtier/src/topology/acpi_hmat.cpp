#include "tier/topology/acpi_hmat.hpp"

#include <cstring>

namespace tier::acpi {

namespace {

// Standard ACPI table header: signature[4], length u32, revision u8, ...
constexpr std::size_t kHeaderSize = 36;
constexpr std::size_t kHmatFirstStructure = kHeaderSize + 4;  // + reserved u32
constexpr std::size_t kSratFirstEntry = kHeaderSize + 12;     // + reserved u32 + u64
constexpr std::uint16_t kHmatLocalityStructure = 1;
constexpr std::uint8_t kSratCpuAffinity = 0;
constexpr std::uint8_t kSratMemoryAffinity = 1;
constexpr std::uint8_t kSratX2apicAffinity = 2;
constexpr std::uint8_t kSratGenericInitiator = 5;

template <typename T>
T load(std::span<const std::uint8_t> bytes, std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof value);  // ACPI is little-endian, like x86
  return value;
}

bool valid_header(std::span<const std::uint8_t> table, const char* signature) {
  if (table.size() < kHeaderSize || std::memcmp(table.data(), signature, 4) != 0) return false;
  return load<std::uint32_t>(table, 4) <= table.size();
}

// The kernel's hmat_normalize(): revision 1 stores tenths, revision 2
// picoseconds for latencies; bandwidth is MB/s in both.
std::optional<std::uint64_t> normalise(std::uint16_t entry, std::uint64_t base,
                                       std::uint8_t revision, HmatDataType type) {
  if (entry == 0 || entry == 0xffff) return std::nullopt;
  std::uint64_t value = entry * base;
  if (revision == 1) {
    if (value < 10) return std::nullopt;
    return (value + 9) / 10;
  }
  bool latency = type == HmatDataType::access_latency || type == HmatDataType::read_latency ||
                 type == HmatDataType::write_latency;
  return latency ? (value + 999) / 1000 : value;
}

void parse_locality(std::span<const std::uint8_t> s, std::uint8_t revision,
                    std::vector<HmatFigure>& out) {
  if (s.size() < 32) return;
  const std::uint8_t hierarchy = s[8] & 0x0f;  // 0 = memory; 1-3 = memory-side caches
  const std::uint8_t type = s[9];
  if (hierarchy != 0 || type > 5) return;
  const std::uint32_t initiators = load<std::uint32_t>(s, 12);
  const std::uint32_t targets = load<std::uint32_t>(s, 16);
  const std::uint64_t base = load<std::uint64_t>(s, 24);
  const std::uint64_t need = 32 + 4ULL * initiators + 4ULL * targets + 2ULL * initiators * targets;
  if (need > s.size()) return;
  const std::size_t initiator_list = 32;
  const std::size_t target_list = initiator_list + 4ULL * initiators;
  const std::size_t entries = target_list + 4ULL * targets;
  for (std::uint32_t i = 0; i < initiators; ++i) {
    for (std::uint32_t t = 0; t < targets; ++t) {
      auto value = normalise(load<std::uint16_t>(s, entries + 2ULL * (i * targets + t)), base,
                             revision, static_cast<HmatDataType>(type));
      if (!value) continue;
      out.push_back({load<std::uint32_t>(s, initiator_list + 4ULL * i),
                     load<std::uint32_t>(s, target_list + 4ULL * t),
                     static_cast<HmatDataType>(type), *value});
    }
  }
}

}  // namespace

std::optional<std::vector<HmatFigure>> parse_hmat(std::span<const std::uint8_t> table) {
  if (!valid_header(table, "HMAT")) return std::nullopt;
  table = table.first(load<std::uint32_t>(table, 4));
  const std::uint8_t revision = table[8];
  if (revision != 1 && revision != 2) return std::nullopt;
  std::vector<HmatFigure> figures;
  for (std::size_t offset = kHmatFirstStructure; offset + 8 <= table.size();) {
    const auto type = load<std::uint16_t>(table, offset);
    const auto length = load<std::uint32_t>(table, offset + 4);
    if (length < 8 || offset + length > table.size()) return std::nullopt;
    if (type == kHmatLocalityStructure)
      parse_locality(table.subspan(offset, length), revision, figures);
    offset += length;
  }
  return figures;
}

std::optional<std::map<std::uint32_t, unsigned>> parse_srat_node_map(
    std::span<const std::uint8_t> table) {
  if (!valid_header(table, "SRAT")) return std::nullopt;
  table = table.first(load<std::uint32_t>(table, 4));
  struct Entry {
    std::uint8_t type;
    std::uint32_t pxm;
  };
  std::vector<Entry> initiators, memory;
  for (std::size_t offset = kSratFirstEntry; offset + 2 <= table.size();) {
    const std::uint8_t type = table[offset];
    const std::uint8_t length = table[offset + 1];
    if (length < 2 || offset + length > table.size()) return std::nullopt;
    auto entry = table.subspan(offset, length);
    // Disabled entries are skipped by Linux before it assigns a node.
    if (type == kSratCpuAffinity && length >= 16 && (load<std::uint32_t>(entry, 4) & 1)) {
      std::uint32_t pxm = entry[2] | (entry[9] << 8) | (entry[10] << 16) |
                          (static_cast<std::uint32_t>(entry[11]) << 24);
      initiators.push_back({type, pxm});
    } else if (type == kSratX2apicAffinity && length >= 24 &&
               (load<std::uint32_t>(entry, 12) & 1)) {
      initiators.push_back({type, load<std::uint32_t>(entry, 4)});
    } else if (type == kSratGenericInitiator && length >= 32 &&
               (load<std::uint32_t>(entry, 24) & 1)) {
      initiators.push_back({type, load<std::uint32_t>(entry, 4)});
    } else if (type == kSratMemoryAffinity && length >= 40 &&
               (load<std::uint32_t>(entry, 28) & 1)) {
      memory.push_back({type, load<std::uint32_t>(entry, 2)});
    }
    offset += length;
  }
  // acpi_numa_init(): one pass over the initiator entry types, then memory.
  std::map<std::uint32_t, unsigned> nodes;
  unsigned next = 0;
  for (const auto* list : {&initiators, &memory}) {
    for (const auto& e : *list) {
      if (!nodes.contains(e.pxm)) nodes[e.pxm] = next++;
    }
  }
  return nodes;
}

}  // namespace tier::acpi
