// Memory data source of a precise PMU sample (union perf_mem_data_src,
// PERF_SAMPLE_DATA_SRC), decoded into plain fields.
//
// Contract: decode_data_src() is pure and total: any 64-bit value decodes;
// fields the PMU left "not available" come out as unknown. The level prefers
// the newer mem_lvl_num + mem_remote encoding (which is how kernels report
// CXL, PMEM and remote DRAM) and falls back to the legacy mem_lvl bits that
// older kernels and older PEBS formats fill alone.
#pragma once

#include <cstdint>
#include <string>

namespace tier::heat::perf {

enum class MemOp : std::uint8_t { unknown, load, store, prefetch, exec };

/// Where the access was served from.
enum class MemLevel : std::uint8_t {
  unknown,
  l1,
  lfb,  // line fill buffer (a miss already in flight)
  l2,
  l3,
  l4,
  any_cache,     // "some cache" (AMD peer/remote cache without a level)
  remote_cache,  // a cache on another node/socket
  local_ram,
  remote_ram,
  cxl,
  pmem,
  io,
  uncached,
};

enum class MemSnoop : std::uint8_t { unknown, none, hit, miss, hit_modified, forward, peer };

struct MemTlb {
  bool known = false;  // false: the PMU did not report the TLB
  bool hit = false;
  bool miss = false;
  bool l1 = false;
  bool l2 = false;
  bool walker = false;  // served by the hardware page walker
  bool os = false;      // OS fault handler
};

struct MemDataSource {
  std::uint64_t raw = 0;
  MemOp op = MemOp::unknown;
  MemLevel level = MemLevel::unknown;
  bool hit = false;   // mem_lvl HIT bit
  bool miss = false;  // mem_lvl MISS bit
  bool remote = false;
  std::uint8_t hops = 0;  // 0 unknown; 1 remote core same node, 2 remote node same
                          // socket, 3 remote socket, 4 remote board (PERF_MEM_HOPS_*)
  MemSnoop snoop = MemSnoop::unknown;
  bool locked = false;
  MemTlb tlb;
};

MemDataSource decode_data_src(std::uint64_t raw);

const char* to_string(MemOp op);
const char* to_string(MemLevel level);
const char* to_string(MemSnoop snoop);
/// One line for logs and `tierctl`: "load remote_ram hit remote hops=3 snoop=none tlb=l1,hit".
std::string describe(const MemDataSource& source);

}  // namespace tier::heat::perf
