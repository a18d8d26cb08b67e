// The ACPI HMAT and SRAT tables, parsed from their raw bytes.
//
// The kernel's sysfs (nodeN/accessK) shows only the best initiators of each
// memory node, so a 2-socket machine with CXL shows "socket 0 → its CXL node"
// but not "socket 1 → that node". The firmware's HMAT has the full matrix.
// Its proximity domains (PXMs) map to node ids the way Linux numbers them:
// in order of first appearance in SRAT, CPU/generic-initiator entries first,
// then memory entries. Callers cross-check the result against sysfs before
// trusting it (see load_topology()).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace tier::acpi {

enum class HmatDataType : std::uint8_t {
  access_latency = 0,
  read_latency = 1,
  write_latency = 2,
  access_bandwidth = 3,
  read_bandwidth = 4,
  write_bandwidth = 5,
};

/// One memory-level (not memory-side cache) locality figure, normalised as
/// the kernel does: latency in ns, bandwidth in MB/s.
struct HmatFigure {
  std::uint32_t initiator_pxm = 0;
  std::uint32_t target_pxm = 0;
  HmatDataType type = HmatDataType::access_latency;
  std::uint64_t value = 0;
};

/// Parses a whole HMAT table (header included). nullopt when the signature,
/// lengths or revision do not make sense; figures the firmware left empty
/// (0 or 0xFFFF) are omitted.
std::optional<std::vector<HmatFigure>> parse_hmat(std::span<const std::uint8_t> table);

/// PXM → Linux node id from a whole SRAT table; nullopt when malformed.
std::optional<std::map<std::uint32_t, unsigned>> parse_srat_node_map(
    std::span<const std::uint8_t> table);

}  // namespace tier::acpi
