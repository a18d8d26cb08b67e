// Topology: an immutable snapshot of the machine's NUMA nodes, memory kinds,
// tiers, distances, HMAT performance and device locality.
//
// Built once by load_topology() from hwloc plus sysfs (through SysRoot), or
// from an hwloc XML export. Everything else in tier reads this snapshot; nothing
// in it changes after construction, so it can be shared between threads.
//
// Two rules shape it (docs/topology.md has the details):
//  - `kind` comes from evidence only (CPUs, hwloc subtype, HMAT/dax/CXL sysfs
//    links); a memory-only node without evidence is `cpuless`, never "cxl".
//  - `tier` is a dense rank, 0 = fastest. `tier_source` names the evidence that
//    ranked it: a config override, else kernel memory tiers when they tell nodes
//    apart, else HMAT latency/bandwidth, else SLIT distance, else `single`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tier/cpu/cpulist.hpp"
#include "tier/posix/sysroot.hpp"

namespace tier {

enum class MemoryKind { dram, hbm, pmem, cxl, cpuless };
enum class TierSource { config, kernel, hmat, slit, single };
enum class DeviceType { gpu, nic, nvme, storage, cxl, accelerator, other };

const char* to_string(MemoryKind kind);
const char* to_string(TierSource source);
const char* to_string(DeviceType type);

struct Node {
  unsigned id = 0;
  CpuList cpus;         // CPUs of this node; empty for CPU-less nodes
  CpuList local_cpus;   // CPUs nearest this node (hwloc locality): == cpus for nodes with
                        // CPUs, the CPUs of the package/group a CPU-less node hangs off
  bool allowed = true;  // in the cpuset/mems tier itself runs in
  std::uint64_t memory_total_bytes = 0;
  std::optional<std::uint64_t> memory_free_bytes;  // unknown in XML exports
  MemoryKind kind = MemoryKind::cpuless;
  std::string kind_evidence;                    // why `kind` was chosen, for humans
  unsigned tier = 0;                            // rank, 0 = fastest
  TierSource tier_source = TierSource::single;  // evidence that ranked this node
  std::optional<int> kernel_memory_tier;  // id of /sys/devices/virtual/memory_tiering/memory_tierN
};

/// Performance of one initiator→target pair, from HMAT (sysfs access classes
/// or hwloc memory attributes). Latency in ns, bandwidth in MB/s as the kernel
/// reports them. Missing figures stay empty.
struct NodePerf {
  unsigned initiator = 0;     // a node with CPUs
  unsigned target = 0;        // any node with memory
  unsigned access_class = 0;  // 0: any initiator incl. I/O, 1: CPUs only
  std::optional<std::uint64_t> read_latency_ns, write_latency_ns;
  std::optional<std::uint64_t> read_bandwidth_mbps, write_bandwidth_mbps;
  std::string source;  // "hmat" (sysfs access0/1) or "hwloc"
};

struct MemoryTier {
  int id = 0;  // kernel's memory_tierN; higher N = slower (abstract distance / 128)
  std::vector<unsigned> nodes;
};

struct Device {
  std::string name;  // e.g. "eth0", "nvme0n1", "card0", or the PCI id when unnamed
  DeviceType type = DeviceType::other;
  std::string pci;  // "0000:3b:00.0"
  std::optional<unsigned> numa_node;
  // Chain of PCI bridge/host-bridge identities from the root down, used to
  // classify device↔device locality (PIX/PXB/PHB/NODE/SYS).
  std::vector<std::string> bridge_path;
};

/// nvidia-smi style locality between two devices.
enum class Locality { self, pix, pxb, phb, node, sys };
const char* to_string(Locality locality);

/// The devices × devices locality matrix from their PCI bridge paths.
std::vector<std::vector<Locality>> device_locality_matrix(const std::vector<Device>& devices);

/// Where the snapshot came from.
struct TopologySource {
  enum class Kind { live, fsroot, xml } kind = Kind::live;
  std::string path;  // root dir or XML file; "/" for live
};

/// Knobs for load_topology(). Defaults read the live system.
struct TopologyOptions {
  SysRoot root{"/"};
  std::optional<std::string> hwloc_xml;        // load an lstopo XML export instead
  std::map<unsigned, unsigned> tier_override;  // node → rank, from config or CLI
};

/// Everything a snapshot holds; load_topology() fills it, tests may too.
struct TopologyData {
  std::vector<Node> nodes;                       // sorted by id
  std::vector<std::vector<unsigned>> distances;  // indexed like nodes; empty when unknown
  std::vector<NodePerf> perf;
  std::vector<MemoryTier> memory_tiers;
  std::vector<Device> devices;
  std::vector<std::vector<Locality>> device_locality;  // devices × devices, see below
  TierSource tier_source = TierSource::single;
  TopologySource source;
  std::vector<std::string> warnings;  // evidence that disagrees (see docs/topology.md)
};

class Topology {
 public:
  Topology() = default;
  explicit Topology(TopologyData data) : data_(std::move(data)) {}

  const std::vector<Node>& nodes() const { return data_.nodes; }
  const Node* node(unsigned id) const;
  /// SLIT distances indexed like nodes() (nodes()[i] → row i); empty when unknown.
  const std::vector<std::vector<unsigned>>& distances() const { return data_.distances; }
  std::optional<unsigned> distance(unsigned from_node, unsigned to_node) const;
  const std::vector<NodePerf>& perf() const { return data_.perf; }
  /// Best (lowest access class) entry for a pair, or null.
  const NodePerf* perf_for(unsigned initiator, unsigned target) const;
  const std::vector<MemoryTier>& memory_tiers() const { return data_.memory_tiers; }
  const std::vector<Device>& devices() const { return data_.devices; }
  TierSource tier_source() const { return data_.tier_source; }
  const TopologySource& source() const { return data_.source; }
  /// Places where the kernel's view and the evidence disagree, for humans.
  const std::vector<std::string>& warnings() const { return data_.warnings; }

  /// Locality between two entries of devices().
  Locality device_locality(std::size_t a, std::size_t b) const {
    return data_.device_locality.at(a).at(b);
  }
  /// Number of distinct tiers.
  unsigned tier_count() const;

 private:
  TopologyData data_;
};

/// Error from load_topology() for input the user must fix (bad --root, bad XML).
struct TopologyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Loads a snapshot. Throws TopologyError when the root is not a sysfs tree or
/// the XML cannot be read; degrades (fields left unknown) on missing files.
Topology load_topology(const TopologyOptions& options = {});

}  // namespace tier
